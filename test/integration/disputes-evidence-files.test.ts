import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/index.js';
import { maxEvidenceFilesBytes } from '../../src/domain/evidence-files.js';
import { type NewFile, recordFile } from '../../src/features/files/records.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  createTemplate,
  createTestDispute,
  type Dispute,
  type ErrorBody,
  expectError,
  getDispute,
  type Json,
  newTenant,
  readStored,
  requiredParams,
  setDefaultVersion,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';
import { samplePdf, samplePng } from '../helpers/evidence-files.js';
import { snapshotTables } from '../helpers/security.js';

/**
 * `evidence_files` on a dispute and template fields of type `file` (docs/api.md, "Files", "On a dispute"):
 * saved on create, update and submit, shown on the dispute object in every version, and refused with
 * nothing changed when they name a file that is not an upload of the dispute's organisation and mode.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  // No relay running: the snapshots compare every table, events' relayed_at included.
  api = await startTestApi({ workers: ['submission'] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

/** Keeps a file as the upload route would (the route itself is tested with it), and answers its id. */
async function storeFile(
  owner: { org: string },
  file: Partial<NewFile> = {},
  livemode = false,
): Promise<string> {
  const storage = postgresFileStorage(api.db.db);
  const row = await api.db.db.transaction((tx) =>
    recordFile(
      tx,
      storage,
      { orgId: owner.org, livemode },
      {
        purpose: 'dispute_evidence',
        filename: 'receipt.png',
        type: 'png',
        pages: null,
        bytes: samplePng(),
        ...file,
      },
    ),
  );
  return row.id;
}

const put = (id: string, json: Json, key = tenant.key) =>
  api.call<Dispute>('PUT', `/v1/disputes/${id}`, { key, json });

const messageOf = (response: { body: unknown }) => (response.body as ErrorBody).error.message;

describe('evidence_files on the dispute object', () => {
  it('is [] on a dispute that names none, in every version', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    expect(dispute.evidence_files).toEqual([]);
    const old = await newTenant(api);
    await setDefaultVersion(api, old, '2016-03-05');
    const legacy = await createTestDispute(api, old.key);
    expect(legacy.evidence_files).toEqual([]);
    expect((await getDispute(api, old.key, legacy.id)).evidence_files).toEqual([]);
  });

  it('PUT saves the list (description null when not sent), and a later PUT replaces it whole', async () => {
    const receipt = await storeFile(tenant);
    const messages = await storeFile(tenant, { type: 'pdf', pages: 3, bytes: await samplePdf() });
    const dispute = await createTestDispute(api, tenant.key);
    const saved = await put(dispute.id, {
      evidence_files: [
        { file: receipt, category: 'receipt', description: 'Receipt e-mailed on 2026-09-28' },
        { file: messages, category: 'customer_communication' },
      ],
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.evidence_files).toEqual([
      { file: receipt, category: 'receipt', description: 'Receipt e-mailed on 2026-09-28' },
      { file: messages, category: 'customer_communication', description: null },
    ]);
    expect((await getDispute(api, tenant.key, dispute.id)).evidence_files).toEqual(saved.body.evidence_files);

    const replaced = await put(dispute.id, {
      evidence_files: [{ file: messages, category: 'uncategorized' }],
    });
    expect(replaced.body.evidence_files).toEqual([
      { file: messages, category: 'uncategorized', description: null },
    ]);
    // Another parameter leaves the list as it is; an empty list clears it.
    expect((await put(dispute.id, { fields: { note: 'x' } })).body.evidence_files).toHaveLength(1);
    expect((await put(dispute.id, { evidence_files: [] })).body.evidence_files).toEqual([]);
  });

  it('takes the list as JSON text in a form body, and shows it in lists and in older versions', async () => {
    const receipt = await storeFile(tenant);
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      form: `evidence_files=${encodeURIComponent(JSON.stringify([{ file: receipt, category: 'receipt' }]))}`,
    });
    expect(response.status, response.text).toBe(200);
    const expected = [{ file: receipt, category: 'receipt', description: null }];
    expect(response.body.evidence_files).toEqual(expected);
    // The list serves cached objects (features/disputes/object-cache.ts): the change is in it.
    const list = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', { key: tenant.key });
    expect(list.body.data.find((item) => item.id === dispute.id)?.evidence_files).toEqual(expected);
    const legacy = await api.call<Dispute>('GET', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      headers: { 'service-version': '2016-03-05' },
    });
    expect(legacy.body.evidence_files).toEqual(expected);
  });

  it('POST /v1/disputes creates with it, and the dispute.created event carries it', async () => {
    const receipt = await storeFile(tenant);
    const params = requiredParams({ evidence_files: [{ file: receipt, category: 'receipt' }] });
    const response = await api.call<Dispute>('POST', '/v1/disputes', { key: tenant.key, json: params });
    expect(response.status, response.text).toBe(201);
    const expected = [{ file: receipt, category: 'receipt', description: null }];
    expect(response.body.evidence_files).toEqual(expected);
    const stored = await readStored(api, tenant, params.id as string);
    const [event] = await api.db.db
      .select()
      .from(events)
      .where(and(eq(events.disputeUid, stored.uid), eq(events.type, 'dispute.created')));
    expect((event as { data: Json }).data.evidence_files).toEqual(expected);
  });

  it('submit saves it and the submission carries the files', async () => {
    const receipt = await storeFile(tenant);
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { evidence_files: [{ file: receipt, category: 'receipt' }] },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.evidence_files).toEqual([{ file: receipt, category: 'receipt', description: null }]);
    const [recorded] = acceptedSubmissions(api, dispute.id);
    expect(recorded?.request.files.map(({ id, category }) => ({ id, category }))).toEqual([
      { id: receipt, category: 'receipt' },
    ]);
  });

  it('is saved by a submit that is then refused (missing_fields), like the other evidence', async () => {
    const receipt = await storeFile(tenant);
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { fields: { order_id: null }, evidence_files: [{ file: receipt, category: 'receipt' }] },
    });
    expectError(response, 400, 'missing_fields');
    expect((await getDispute(api, tenant.key, dispute.id)).evidence_files).toEqual([
      { file: receipt, category: 'receipt', description: null },
    ]);
  });
});

describe('a bad evidence_files answers 400 invalid_evidence_files and changes nothing', () => {
  const refused = async (evidence: unknown, message: string) => {
    const dispute = await createTestDispute(api, tenant.key);
    const before = await snapshotTables(api.db.sql);
    const response = await put(dispute.id, { evidence_files: evidence });
    expectError(response, 400, 'invalid_evidence_files', { url: `/v1/disputes/${dispute.id}` });
    expect(messageOf(response)).toBe(message);
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  };

  it('a file that does not exist', async () => {
    const id = 'file_00000000000000000000';
    await refused(
      [{ file: id, category: 'receipt' }],
      `Invalid evidence_files.0.file: no file with id '${id}'.`,
    );
  });

  it("another organisation's file, and a file of the other mode, answer as an unknown one", async () => {
    const other = await newTenant(api);
    const theirs = await storeFile(other);
    const live = await storeFile(tenant, {}, true);
    const mine = await storeFile(tenant);
    await refused(
      [
        { file: mine, category: 'receipt' },
        { file: theirs, category: 'receipt' },
      ],
      `Invalid evidence_files.1.file: no file with id '${theirs}'.`,
    );
    await refused(
      [{ file: live, category: 'receipt' }],
      `Invalid evidence_files.0.file: no file with id '${live}'.`,
    );
  });

  it('a product image the service fetched', async () => {
    const image = await storeFile(tenant, { purpose: 'product_image' });
    await refused(
      [{ file: image, category: 'receipt' }],
      `Invalid evidence_files.0.file: '${image}' is a product image the service fetched, not an upload.`,
    );
  });

  it('an unknown category, a malformed id, and more than 20 entries', async () => {
    const receipt = await storeFile(tenant);
    const dispute = await createTestDispute(api, tenant.key);
    const category = await put(dispute.id, { evidence_files: [{ file: receipt, category: 'invoice' }] });
    expectError(category, 400, 'invalid_evidence_files');
    expect(messageOf(category)).toMatch(/^Invalid evidence_files\.0\.category: /);
    const malformed = await put(dispute.id, {
      evidence_files: [{ file: 'receipt.png', category: 'receipt' }],
    });
    expectError(malformed, 400, 'invalid_evidence_files');
    expect(messageOf(malformed)).toBe('Invalid evidence_files.0.file: must be a file id (file_…).');
    const many = Array.from({ length: 21 }, () => ({ file: receipt, category: 'receipt' }));
    const tooMany = await put(dispute.id, { evidence_files: many });
    expectError(tooMany, 400, 'invalid_evidence_files');
    expect(messageOf(tooMany)).toBe('Invalid evidence_files: must have at most 20 items.');
    expect((await getDispute(api, tenant.key, dispute.id)).evidence_files).toEqual([]);
  });

  it('on create, nothing is created', async () => {
    const params = requiredParams({
      evidence_files: [{ file: 'file_00000000000000000000', category: 'receipt' }],
    });
    const before = await snapshotTables(api.db.sql);
    const response = await api.call('POST', '/v1/disputes', { key: tenant.key, json: params });
    expectError(response, 400, 'invalid_evidence_files', { url: '/v1/disputes' });
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });
});

describe('template fields of type file', () => {
  it('templates take the type; a required one is missing until it holds a file of the tenant', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'signed_receipt', type: 'file', required: true },
    ]);
    const dispute = await createTestDispute(api, tenant.key);
    const attached = await put(dispute.id, { template });
    expect(attached.body.missing_fields).toEqual({ signed_receipt: 'file' });

    const other = await newTenant(api);
    const wrong = [
      'file_00000000000000000000',
      await storeFile(other),
      await storeFile(tenant, { purpose: 'product_image' }),
    ];
    for (const file of wrong) {
      const before = await snapshotTables(api.db.sql);
      const response = await put(dispute.id, { fields: { signed_receipt: file } });
      expectError(response, 400, 'invalid_fields');
      expect(messageOf(response)).toBe(
        `Field 'signed_receipt' must name an uploaded file: no file with id '${file}'.`,
      );
      expect(await snapshotTables(api.db.sql)).toEqual(before);
    }
    const shape = await put(dispute.id, { fields: { signed_receipt: 'receipt.png' } });
    expectError(shape, 400, 'invalid_fields');

    const receipt = await storeFile(tenant);
    const filled = await put(dispute.id, { fields: { signed_receipt: receipt } });
    expect(filled.status, filled.text).toBe(200);
    expect(filled.body.missing_fields).toEqual({});
    expect(filled.body.fields).toEqual({ signed_receipt: receipt });
  });

  it('a submission carries the field file as uncategorized evidence described by the key', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'signed_receipt', type: 'file', required: true },
    ]);
    const receipt = await storeFile(tenant);
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { template, fields: { signed_receipt: receipt } },
    });
    expect(response.status, response.text).toBe(201);
    const [recorded] = acceptedSubmissions(api, dispute.id);
    expect(
      recorded?.request.files.map(({ id, category, description }) => ({ id, category, description })),
    ).toEqual([{ id: receipt, category: 'uncategorized', description: 'signed_receipt' }]);
  });
});

// Last: the snapshots of the tests above would read these 22 MB of file contents.
describe('the total size of the files a dispute names', () => {
  it('is at most 20 MB: more answers 400 invalid_evidence_files and changes nothing', async () => {
    const big = Buffer.alloc(4_500_000, 1);
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await storeFile(tenant, { type: 'pdf', pages: 1, bytes: big }));
    const dispute = await createTestDispute(api, tenant.key);
    const four = ids.slice(0, 4).map((file) => ({ file, category: 'receipt' }));
    expect((await put(dispute.id, { evidence_files: four })).status).toBe(200);
    const stored = await readStored(api, tenant, dispute.id);
    const response = await put(dispute.id, {
      evidence_files: ids.map((file) => ({ file, category: 'receipt' })),
    });
    expectError(response, 400, 'invalid_evidence_files');
    expect(messageOf(response)).toBe(
      `The files this dispute names would add up to 22500000 bytes; at most ${maxEvidenceFilesBytes} are taken.`,
    );
    expect(await readStored(api, tenant, dispute.id)).toEqual(stored);
  });
});
