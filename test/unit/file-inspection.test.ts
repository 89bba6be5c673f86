import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inspectApart } from '../../src/documents/inspection.js';
import { ImagePlacer, maxDrawnPixels } from '../../src/domain/evidence-attachments.js';
import { inspectFile } from '../../src/domain/file-inspection.js';
import { samplePdf, samplePng } from '../helpers/evidence-files.js';

/** A PNG of `width` × `height` whose one row of pixels is all the data: small whatever its size says. */
function pngOfSize(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const check = Buffer.alloc(4);
    check.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, check]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PDF whose page tree names itself among its kids: walking it never ends. */
const cyclicPdf = Buffer.from(
  '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);

describe('inspectFile (docs/api.md, "Uploading")', () => {
  it.each([
    ['an ordinary PNG', () => samplePng(), { type: 'png', pages: null }],
    ['a PDF of 3 pages', () => samplePdf('x', 3), { type: 'pdf', pages: 3 }],
    [
      'an image of 5,000 × 5,000 pixels: at the limit',
      () => pngOfSize(5000, 5000),
      { type: 'png', pages: null },
    ],
    [
      'an image over 25,000,000 pixels',
      () => pngOfSize(30_000, 30_000),
      {
        problem: 'the image is 30,000 × 30,000 pixels; at most 25,000,000 pixels and 12,000 a side are taken',
      },
    ],
    [
      'an image over 12,000 pixels a side',
      () => pngOfSize(12_001, 10),
      { problem: 'the image is 12,001 × 10 pixels; at most 25,000,000 pixels and 12,000 a side are taken' },
    ],
    [
      'a JPEG without a frame header',
      () =>
        Buffer.concat([
          Buffer.from([0xff, 0xd8, 0xff]),
          Buffer.from('<html></html>'),
          Buffer.from([0xff, 0xd9]),
        ]),
      { problem: 'the JPEG has no readable image size' },
    ],
    ['a PDF whose page tree is endless', () => cyclicPdf, { problem: 'the PDF cannot be read' }],
  ])('%s', async (_, bytes, expected) => {
    expect(await inspectFile(await bytes())).toEqual(expected);
  });
});

describe("a document's drawn images", () => {
  it(`come to at most ${maxDrawnPixels} pixels: an image past that is not drawn, and says why`, () => {
    const placer = new ImagePlacer();
    const image = (id: string) => ({ id, type: 'png' as const, pixels: { width: 5000, height: 5000 } });
    expect(placer.draw(image('file_a'), 500, 500)).toMatchObject({ file: 'file_a' });
    expect(placer.draw(image('file_b'), 500, 500)).toMatchObject({ file: 'file_b' });
    // Drawn again (a product's thumbnail of the same file): no second decoding.
    expect(placer.draw(image('file_a'), 100, 100)).toMatchObject({ file: 'file_a' });
    expect(placer.draw(image('file_c'), 500, 500)).toEqual({
      notDrawn: "the document's images would come to more than 60,000,000 pixels",
    });
    expect(placer.files.images.map((drawn) => drawn.file)).toEqual(['file_a', 'file_b']);
  });
});

describe('inspectApart', () => {
  it('reads a PDF on a thread of its own, bounded in time: past the bound it is refused', async () => {
    const parts = ['%PDF-1.7\n'];
    for (let object = 1; object <= 190_000; object++) parts.push(`${object} 0 obj\n<< >>\nendobj\n`);
    parts.push('trailer\n<< /Root 1 0 R >>\n%%EOF\n');
    const heavy = Buffer.from(parts.join(''), 'latin1');
    // Seconds of parsing, against a bound of a tenth of one.
    expect(await inspectApart(heavy, 'org_a', { ms: 100, heapMb: 256 })).toEqual({
      problem: 'the PDF takes more than 0.1 s to read',
    });
    expect(await inspectApart(await samplePdf('x', 3), 'org_a')).toEqual({ type: 'pdf', pages: 3 });
  }, 30_000);

  it("serves tenants in turn: one organisation's backlog of heavy PDFs does not hold another's upload", async () => {
    const parts = ['%PDF-1.7\n'];
    for (let object = 1; object <= 190_000; object++) parts.push(`${object} 0 obj\n<< >>\nendobj\n`);
    parts.push('trailer\n<< /Root 1 0 R >>\n%%EOF\n');
    const heavy = Buffer.from(parts.join(''), 'latin1');
    const finished: string[] = [];
    // Each heavy read runs to its bound, two at once. The bound is long beside a thread's start on a busy
    // machine, so that the small read, started beside the third heavy one, finishes first.
    const backlog = Array.from({ length: 6 }, (_, at) =>
      inspectApart(heavy, 'org_busy', { ms: 2_000, heapMb: 256 }).then(() => finished.push(`busy ${at}`)),
    );
    const small = inspectApart(await samplePdf('x', 1), 'org_other').then(() => finished.push('other'));
    await Promise.all([...backlog, small]);
    // Served after the two reads running and at most one more of the busy line, not after all six.
    expect(finished.indexOf('other')).toBeLessThanOrEqual(3);
  }, 30_000);
});
