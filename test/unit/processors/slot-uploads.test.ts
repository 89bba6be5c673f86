import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { documentOnly } from '../../../src/processors/evidence-limits.js';
import { mergeFiles } from '../../../src/processors/merge-files.js';
import { checkEvidenceLimits, sentFile, slotUploads } from '../../../src/processors/slot-uploads.js';
import type { EvidenceLimits } from '../../../src/processors/types.js';
import { attached, sampleJpeg, samplePdf, samplePng } from '../../helpers/evidence-files.js';

const limits: EvidenceLimits = {
  ...documentOnly,
  slots: {
    receipt: 'receipt_file',
    shipping_documentation: 'delivery_file',
    service_documentation: 'delivery_file',
  },
};

describe('slot uploads', () => {
  it('sends a lone file as it is and merges the files of a shared slot; files without a slot stay out', async () => {
    const receipt = attached('file_unitreceipt00000001', samplePng('Receipt'), 'png', 'receipt');
    const label = attached('file_unitlabel0000000001', sampleJpeg('Label'), 'jpg', 'shipping_documentation');
    const service = attached(
      'file_unitservice00000001',
      await samplePdf('Service', 2),
      'pdf',
      'service_documentation',
      {
        pages: 2,
      },
    );
    const log = attached('file_unitlog000000000001', samplePng('Log'), 'png', 'access_activity_log');
    const uploads = await slotUploads(limits, [label, receipt, log, service], 'sub_unit');
    expect(
      uploads.map(({ slot, filename, type, contentType, pages, files }) => ({
        slot,
        filename,
        type,
        contentType,
        pages,
        files: files.map((file) => file.id),
      })),
    ).toEqual([
      {
        slot: 'delivery_file',
        filename: 'delivery_file-sub_unit.pdf',
        type: 'pdf',
        contentType: 'application/pdf',
        pages: 3,
        files: [label.id, service.id],
      },
      {
        slot: 'receipt_file',
        filename: 'receipt_file-sub_unit.png',
        type: 'png',
        contentType: 'image/png',
        pages: null,
        files: [receipt.id],
      },
    ]);
    expect(uploads[1]?.bytes.equals(receipt.bytes)).toBe(true);
  });

  it('merges to the same bytes every time, the pages in order', async () => {
    const files = [
      attached('file_unitmergepdf0000001', await samplePdf('First', 2), 'pdf', 'receipt', { pages: 2 }),
      attached('file_unitmergepng0000001', samplePng('Second'), 'png', 'receipt'),
    ];
    const once = await mergeFiles(files);
    const again = await mergeFiles(files);
    expect(again.bytes.equals(once.bytes)).toBe(true);
    expect(once.pages).toBe(3);
    expect((await PDFDocument.load(once.bytes)).getPageCount()).toBe(3);
  });
});

describe('evidence limits', () => {
  const strict: EvidenceLimits = { ...documentOnly, maxFileBytes: 100, maxTotalBytes: 150, maxPages: 2 };
  const file = (label: string, size: number, pages: number | null = null) => ({ label, size, pages });

  it.each([
    ['within every limit', [file('A', 100), file('B', 50, 2)], null],
    [
      'a file over the size',
      [file('The file file_a (a.png)', 101)],
      "The file file_a (a.png) is 101 bytes, over the processor's limit of 100 bytes a file; nothing was sent.",
    ],
    [
      'a PDF over the pages',
      [file('The file file_b (b.pdf)', 10, 3)],
      "The file file_b (b.pdf) has 3 pages, over the processor's limit of 2 pages; nothing was sent.",
    ],
    [
      'files over the total',
      [file('A', 100), file('B', 51)],
      "The files of the submission are 151 bytes together, over the processor's limit of 150 bytes in all; nothing was sent.",
    ],
  ])('%s', (_name, sent, message) => {
    const check = () => checkEvidenceLimits('unit', strict, sent);
    if (message === null) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ message, retryable: false, processor: 'unit' }));
  });

  it('names the files merged into an upload', async () => {
    const [upload] = await slotUploads(
      limits,
      [
        attached('file_unitnamea0000000001', samplePng('A'), 'png', 'shipping_documentation', {
          filename: 'a.png',
        }),
        attached('file_unitnameb0000000001', samplePng('B'), 'png', 'service_documentation', {
          filename: 'b.png',
        }),
      ],
      'sub_unit',
    );
    expect(sentFile(upload as NonNullable<typeof upload>).label).toBe(
      'The delivery_file files merged (file_unitnamea0000000001 (a.png), file_unitnameb0000000001 (b.png))',
    );
  });
});
