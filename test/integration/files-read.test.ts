import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileContents, files } from '../../src/db/schema/index.js';
import { decidedStates } from '../../src/domain/states.js';
import { recordFile } from '../../src/features/files/records.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestDispute, newTenant, type Tenant, writeStored } from '../helpers/disputes.js';
import { sampleJpeg, samplePdf, samplePng } from '../helpers/evidence-files.js';
import { fetchRaw, storedCounts, upload } from '../helpers/files.js';
import { expectApiError } from '../helpers/security.js';

/**
 * Reading and deleting files (docs/api.md, "Reading and deleting"): lists paged like disputes, the object,
 * the bytes as a download, and deletion, refused while a dispute not yet decided names the file. Another
 * organisation's or mode's file is as unknown as one that never existed.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

type Json = Record<string, unknown>;
type FileObject = Json & { id: string };

async function uploaded(key: string, bytes = samplePng(), filename = 'receipt.png'): Promise<FileObject> {
  const response = await upload(api, key, bytes, filename);
  expect(response.status, response.text).toBe(201);
  return response.body as FileObject;
}

describe('GET /v1/files', () => {
  it('lists the files of the key, newest first, paged like disputes; product images too', async () => {
    const tenant = await newTenant(api);
    const made: FileObject[] = [];
    for (const label of ['one', 'two', 'three']) made.push(await uploaded(tenant.key, samplePng(label)));
    // A product image the service kept for a dispute (not uploadable through the API).
    const image = await api.db.db.transaction((tx) =>
      recordFile(
        tx,
        api.deps.fileStorage,
        { orgId: tenant.org, livemode: false },
        {
          purpose: 'product_image',
          filename: 'mug.jpg',
          type: 'jpg',
          pages: null,
          bytes: sampleJpeg('Mug'),
        },
      ),
    );
    // Another organisation's and the live mode's files are not listed.
    await uploaded((await api.createOrg()).test_key);
    await uploaded(tenant.live_key);

    const first = await api.call('GET', '/v1/files', { key: tenant.key, query: { limit: 2 } });
    expect(first.status, first.text).toBe(200);
    const ids = (body: Json) => (body.data as FileObject[]).map((file) => file.id);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, livemode: false, url: '/v1/files' });
    expect(ids(first.body)).toEqual([image.id, made[2]?.id]);
    expect((first.body.data as Json[])[0]).toMatchObject({ purpose: 'product_image', filename: 'mug.jpg' });
    expect((first.body.data as Json[])[1]).toEqual(made[2]);

    const rest = await api.call('GET', '/v1/files', {
      key: tenant.key,
      query: { limit: 2, starting_after: made[2]?.id },
    });
    expect(rest.body).toMatchObject({ has_more: false });
    expect(ids(rest.body)).toEqual([made[1]?.id, made[0]?.id]);

    const back = await api.call('GET', '/v1/files', {
      key: tenant.key,
      query: { limit: 2, ending_before: made[0]?.id },
    });
    expect(ids(back.body)).toEqual([made[2]?.id, made[1]?.id]);

    const foreign = await uploaded((await api.createOrg()).test_key);
    const refused = await api.call('GET', '/v1/files', {
      key: tenant.key,
      query: { starting_after: foreign.id },
    });
    expectApiError(refused, { status: 400, type: 'invalid_request', url: '/v1/files' });
  });
});

describe('GET /v1/files/:id and /contents', () => {
  it('answers the object as the upload did, and the bytes as sent, as a download', async () => {
    const { test_key } = await api.createOrg();
    const pdf = await samplePdf('Messages', 2);
    const file = await uploaded(test_key, pdf, 'messages.pdf');
    const retrieved = await api.call('GET', `/v1/files/${file.id}`, { key: test_key });
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toEqual(file);

    const contents = await fetchRaw(api, test_key, `/v1/files/${file.id}/contents`);
    expect(contents.status).toBe(200);
    expect(contents.bytes.equals(pdf)).toBe(true);
    expect(contents.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(pdf.length),
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="messages.pdf"; filename*=UTF-8''messages.pdf`,
      'cache-control': 'private, no-store',
    });
  });

  it("puts the uploader's name into Content-Disposition only percent-encoded, with an ASCII stand-in", async () => {
    const { test_key } = await api.createOrg();
    const file = await uploaded(test_key, sampleJpeg(), 'reçu "final"; filename=evil.html%0d.jpg');
    const contents = await fetchRaw(api, test_key, `/v1/files/${file.id}/contents`);
    expect(contents.headers['content-type']).toBe('image/jpeg');
    expect(contents.headers['content-disposition']).toBe(
      `attachment; filename="re_u _final_; filename=evil.html_0d.jpg"; filename*=UTF-8''re%C3%A7u%20%22final%22%3B%20filename%3Devil.html%250d.jpg`,
    );
  });
});

describe('DELETE /v1/files/:id', () => {
  it('deletes the file and its bytes: 200 {object, id, deleted}, then 404', async () => {
    const { test_key } = await api.createOrg();
    const file = await uploaded(test_key);
    const deleted = await api.call('DELETE', `/v1/files/${file.id}`, { key: test_key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      object: 'file',
      id: file.id,
      deleted: true,
      livemode: false,
      url: `/v1/files/${file.id}`,
    });
    expect(await api.db.db.select().from(files).where(eq(files.id, file.id))).toEqual([]);
    expect(await api.db.db.select().from(fileContents).where(eq(fileContents.fileId, file.id))).toEqual([]);
    const again = await api.call('DELETE', `/v1/files/${file.id}`, { key: test_key });
    expectApiError(again, { status: 404, type: 'file_not_found', url: `/v1/files/${file.id}` });
  });

  /** A dispute of `tenant` in `state` naming `file` as `how` does. */
  async function naming(tenant: Tenant, file: string, how: string, state: string) {
    const dispute = await createTestDispute(api, tenant.key);
    const values = {
      evidence_files: { evidenceFiles: [{ file, category: 'receipt' as const, description: null }] },
      field: { fields: { receipt: file } },
      product_image: { productImages: [{ url: 'https://shop.example/mug.jpg', file, problem: null }] },
    }[how];
    await writeStored(api, tenant, dispute.id, { ...values, state });
    return dispute.id;
  }

  it('is refused while a dispute not yet decided names the file, in evidence_files, a field or a product image', async () => {
    const tenant = await newTenant(api);
    for (const how of ['evidence_files', 'field', 'product_image']) {
      for (const state of ['needs_response', 'queued', 'submitted', 'requires_review']) {
        const file = await uploaded(tenant.key);
        const dispute = await naming(tenant, file.id, how, state);
        const before = await storedCounts(api);
        const refused = await api.call('DELETE', `/v1/files/${file.id}`, { key: tenant.key });
        expectApiError(refused, { status: 400, type: 'invalid_request', url: `/v1/files/${file.id}` });
        expect((refused.body.error as Json).message).toBe(
          `The file '${file.id}' is named by dispute '${dispute}', which is not yet decided; remove it from that dispute first.`,
        );
        expect(await storedCounts(api)).toEqual(before);
      }
    }
  });

  it('is allowed once every dispute naming it is decided', async () => {
    const tenant = await newTenant(api);
    for (const state of decidedStates) {
      const file = await uploaded(tenant.key);
      await naming(tenant, file.id, 'evidence_files', state);
      await naming(tenant, file.id, 'field', state);
      const deleted = await api.call('DELETE', `/v1/files/${file.id}`, { key: tenant.key });
      expect(deleted.status, `${state}: ${deleted.text}`).toBe(200);
    }
  });
});

describe("another organisation's or mode's file", () => {
  it('is not found on retrieve, contents and delete, and stays', async () => {
    const owner = await api.createOrg();
    const other = await api.createOrg();
    const file = await uploaded(owner.test_key);
    for (const key of [other.test_key, other.live_key, owner.live_key]) {
      for (const [method, path] of [
        ['GET', `/v1/files/${file.id}`],
        ['GET', `/v1/files/${file.id}/contents`],
        ['DELETE', `/v1/files/${file.id}`],
      ] as const) {
        const response = await api.call(method, path, { key });
        expectApiError(response, {
          status: 404,
          type: 'file_not_found',
          url: path,
          livemode: key.startsWith('live_'),
        });
      }
    }
    expect((await api.call('GET', `/v1/files/${file.id}`, { key: owner.test_key })).status).toBe(200);
  });

  it('an id that cannot be a file id is not found either', async () => {
    const { test_key } = await api.createOrg();
    for (const id of ['file_short', 'dp_12345678901234567890', 'x'.repeat(300)]) {
      const response = await api.call('GET', `/v1/files/${id}`, { key: test_key });
      expectApiError(response, { status: 404, type: 'file_not_found', url: `/v1/files/${id}` });
    }
  });
});
