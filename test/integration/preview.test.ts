import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentLimits } from '../../src/config.js';
import { documents, submissions } from '../../src/db/schema/index.js';
import type { EvidenceLimits } from '../../src/domain/evidence-files.js';
import { inspectFile } from '../../src/domain/file-inspection.js';
import { recordFile } from '../../src/features/files/records.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { rerenderDocuments } from '../../src/features/responses/documents.js';
import { previewResponse } from '../../src/features/responses/preview.js';
import { documentOnly } from '../../src/processors/evidence-limits.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  createTestDispute,
  expectError,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';
import { sampleJpeg, samplePdf, samplePng } from '../helpers/evidence-files.js';
import { pageTexts } from '../helpers/pdf-text.js';

/** The mock processor with limits a test sets: the real adapters' are theirs to test. */
class LimitedMock extends MockAdapter {
  override evidenceLimits: EvidenceLimits = documentOnly;
}

const mock = new LimitedMock();
let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ env: { SUBMIT_WAIT_MS: '5000' }, mock });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

/** Keeps a file for the tenant, as an upload would (the files API is tested on its own). */
async function keepFile(
  filename: string,
  bytes: Buffer,
  purpose: 'dispute_evidence' | 'product_image' = 'dispute_evidence',
) {
  const type = filename.endsWith('.pdf') ? 'pdf' : 'png';
  const pages = type === 'pdf' ? 3 : null;
  return api.db.db.transaction((tx) =>
    recordFile(
      tx,
      postgresFileStorage(api.db.db),
      { orgId: tenant.org, livemode: false },
      {
        purpose,
        filename,
        type,
        pages,
        bytes,
      },
    ),
  );
}

/** A submittable dispute naming a receipt image, a 3-page PDF of messages and a product with a kept image. */
async function disputeWithFiles() {
  const { dispute } = await submittableDispute(api, tenant);
  const receipt = await keepFile('receipt.png', samplePng('Receipt 4711'));
  const messages = await keepFile('messages.pdf', await samplePdf('Customer messages', 3));
  const shoe = await keepFile('shoe.png', samplePng('Shoe', 300, 200), 'product_image');
  const image = 'https://shop.example.com/shoe.png';
  await writeStored(api, tenant, dispute.id, {
    evidenceFiles: [
      { file: receipt.id, category: 'receipt', description: 'Receipt e-mailed on 2026-09-28' },
      { file: messages.id, category: 'customer_communication', description: null },
    ],
    products: [{ name: 'Trail shoe', quantity: 1, amount: 6499, image }],
    productImages: [{ url: image, file: shoe.id, problem: null }],
  });
  return { id: dispute.id, receipt, messages };
}

const preview = (id: string, format?: 'json') =>
  api.call('GET', `/v1/disputes/${id}/preview${format ? '?format=json' : ''}`, { key: tenant.key });

describe('GET /v1/disputes/:id/preview', () => {
  it('answers the document as a PDF: the files drawn and listed, the PDF appended; nothing saved', async () => {
    mock.evidenceLimits = { ...documentOnly, slots: { shipping_documentation: 'delivery_proof' } };
    const { id } = await disputeWithFiles();
    const before = await readStored(api, tenant, id);
    const response = await preview(id);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['x-evidence-warnings']).toBe('2');
    expect(response.headers['cache-control']).toBe('private, no-store');
    const pages = await pageTexts(response.bytes);
    const own = pages.length - 3;
    const text = pages.slice(0, own).join(' ');
    expect(text).toContain('Attachments (2)');
    expect(text).toContain('Receipt e-mailed on 2026-09-28');
    expect(text).toContain(`Pages ${own + 1} to ${own + 3} of this file, after this document`);
    expect(pages.slice(own)).toEqual([
      'Customer messages, page 1 of 3',
      'Customer messages, page 2 of 3',
      'Customer messages, page 3 of 3',
    ]);
    expect(await readStored(api, tenant, id)).toEqual(before);
    const [document] = await api.db.db.select().from(documents).where(eq(documents.disputeUid, before.uid));
    expect(document).toBeUndefined();
  });

  it('answers its figures and warnings with format=json', async () => {
    // A processor that takes delivery proofs on their own: the receipt and the messages have no slot.
    mock.evidenceLimits = { ...documentOnly, slots: { shipping_documentation: 'delivery_proof' } };
    const { id, receipt, messages } = await disputeWithFiles();
    const pdf = await preview(id);
    const response = await preview(id, 'json');
    expect(response.status).toBe(200);
    const body = response.body as Record<string, unknown>;
    expect(body).toEqual({
      object: 'preview',
      pages: (await pageTexts(pdf.bytes)).length,
      bytes: expect.any(Number),
      warnings: [
        {
          code: 'no_file_slot',
          message:
            "'receipt.png' (Receipt) has no mock slot of its own: it is shown in the response document.",
          field: receipt.id,
        },
        {
          code: 'no_file_slot',
          message:
            "'messages.pdf' (Customer communication) has no mock slot of its own: it is shown in the response document.",
          field: messages.id,
        },
      ],
      livemode: false,
      url: `/v1/disputes/${id}/preview`,
    });
    expect(Math.abs((body.bytes as number) - pdf.bytes.length)).toBeLessThan(64);
  });

  it('is refused like a submit without a template', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await preview(dispute.id);
    expectError(response, 400, 'missing_template', { url: `/v1/disputes/${dispute.id}/preview` });
    expect(response.body).toMatchObject({
      error: { message: 'A template is required to preview the response document.' },
    });
  });

  it('gives the same bytes as the submission that follows, dated alike', async () => {
    mock.evidenceLimits = documentOnly;
    const { id } = await disputeWithFiles();
    const submitted = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(201);
    const stored = await readStored(api, tenant, id);
    const [submission] = await api.db.db
      .select()
      .from(submissions)
      .where(eq(submissions.disputeUid, stored.uid));
    const [document] = await api.db.db.select().from(documents).where(eq(documents.disputeUid, stored.uid));
    if (!submission || !document) throw new Error('no submission');
    const deps = {
      db: api.db.db,
      adapters: createAdapterRegistry({ mock }),
      documentLimits: documentLimits(api.config),
    };
    const previewed = await previewResponse(
      deps,
      { orgId: tenant.org, livemode: false },
      id,
      submission.createdAt,
    );
    expect(previewed.pdf.equals(document.pdf)).toBe(true);
  });

  it('keeps the files by reference with the document, and draws them again when it is re-rendered', async () => {
    mock.evidenceLimits = documentOnly;
    const { id, receipt, messages } = await disputeWithFiles();
    const submitted = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(201);
    const { uid } = await readStored(api, tenant, id);
    const stored = async () => {
      const [row] = await api.db.db.select().from(documents).where(eq(documents.disputeUid, uid));
      if (!row) throw new Error('no document');
      return row;
    };
    const before = await stored();
    const input = before.input as { files: { id: string }[]; productImages: { file: { id: string } }[] };
    expect(input.files.map((file) => file.id)).toEqual([receipt.id, messages.id]);
    expect(input.productImages).toHaveLength(1);
    expect(JSON.stringify(input).length).toBeLessThan(receipt.size);
    await api.db.db.transaction((tx) =>
      rerenderDocuments(tx, [uid], (old) => ({
        ...old,
        dispute: { ...old.dispute, customerName: 'Removed' },
      })),
    );
    const after = await stored();
    expect(after.pdf.equals(before.pdf)).toBe(false);
    const pages = await pageTexts(after.pdf);
    expect(pages.join(' ')).toContain('Removed');
    expect(pages.length).toBe((await pageTexts(before.pdf)).length);
    expect(pages.slice(-1)).toEqual(['Customer messages, page 3 of 3']);
  });

  it('warns of what the processor refuses, and the adapter refuses the submission with nothing sent', async () => {
    mock.evidenceLimits = {
      ...documentOnly,
      slots: { receipt: 'receipt_file' },
      types: ['png'],
      maxFileBytes: 1000,
    };
    const { id, receipt } = await disputeWithFiles();
    const response = await preview(id, 'json');
    const warnings = (response.body as { warnings: unknown[] }).warnings;
    expect(warnings[0]).toEqual({
      code: 'file_too_large',
      message: `'receipt.png' (Receipt) is ${receipt.size.toLocaleString('en-US')} bytes; mock takes at most 1,000 a file.`,
      field: receipt.id,
    });
    const submitted = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
    expect(submitted.status).toBe(502);
    expect(acceptedSubmissions(api, id)).toEqual([]);
    const stored = await readStored(api, tenant, id);
    const [submission] = await api.db.db
      .select()
      .from(submissions)
      .where(and(eq(submissions.disputeUid, stored.uid), eq(submissions.status, 'failed')));
    expect(submission?.failure).toMatchObject({ retryable: false });
    expect(JSON.stringify(submission?.failure)).toContain(
      `The file ${receipt.id} (receipt.png) is ${receipt.size} bytes, over the processor's limit of 1000 bytes a file; nothing was sent.`,
    );
  });

  it('an image the layout engine cannot decode: the preview answers 400, the submission fails at once', async () => {
    mock.evidenceLimits = documentOnly;
    const { dispute } = await submittableDispute(api, tenant);
    // A JPEG whose header reads well (size, end marker) but whose scan is cut short: taken at upload.
    const jpeg = sampleJpeg('Scan', 80, 50);
    const scan = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    const bytes = Buffer.concat([jpeg.subarray(0, scan), Buffer.from([0xff, 0xda, 0x00, 0x02, 0xff, 0xd9])]);
    expect(await inspectFile(bytes)).toEqual({ type: 'jpg', pages: null });
    const file = await api.db.db.transaction((tx) =>
      recordFile(
        tx,
        postgresFileStorage(api.db.db),
        { orgId: tenant.org, livemode: false },
        { purpose: 'dispute_evidence', filename: 'scan.jpg', type: 'jpg', pages: null, bytes },
      ),
    );
    await writeStored(api, tenant, dispute.id, {
      evidenceFiles: [{ file: file.id, category: 'receipt', description: null }],
    });
    const previewed = await preview(dispute.id);
    expectError(previewed, 400, 'invalid_evidence_files', { url: `/v1/disputes/${dispute.id}/preview` });
    expect((previewed.body as { error: { message: string } }).error.message).toMatch(
      /^An evidence image cannot be decoded \(.+\); replace the file\.$/,
    );
    const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expectError(submitted, 502, 'processor_error', { url: `/v1/disputes/${dispute.id}/submit` });
    expect((submitted.body as { error: { message: string } }).error.message).toContain(
      'Not sent: an evidence image cannot be decoded',
    );
    // Failed for good at the first attempt, not left to be retried for hours.
    const attempts = await api.db.db
      .select({ status: submissions.status })
      .from(submissions)
      .where(eq(submissions.disputeUid, (await readStored(api, tenant, dispute.id)).uid));
    expect(attempts).toEqual([{ status: 'failed' }]);
  });
});
