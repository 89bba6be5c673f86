import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { files } from '../../src/db/schema/index.js';
import { createProductImageFetcher } from '../../src/features/disputes/product-images.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { callPort, startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  disputeAttributes,
  expectError,
  type Json,
  newTenant,
  readStored,
  requiredParams,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';
import { sampleJpeg, samplePng } from '../helpers/evidence-files.js';
import { type ListeningServer, serve, snapshotTables } from '../helpers/security.js';
import { testAuthority } from '../helpers/tls.js';

/**
 * Products' `image` URLs fetched when the evidence is saved (docs/api.md, "Files", "Product images"),
 * from an HTTPS server on loopback that the test's own authority vouches for: what is kept, what is
 * noted as a problem, what is fetched again, and that no transaction waits on the fetching.
 */

const png = samplePng('Blue mug');
const jpeg = sampleJpeg('Blue mug, side');
const threeMegabytes = Buffer.concat([png.subarray(0, 8), Buffer.alloc(3 * 1024 * 1024)]);

let api: TestApi;
let tenant: Tenant;
let images: Server;
let origin: string;
let app: ListeningServer;
let strictApp: ListeningServer;
/** A fetcher that trusts the test's authority, for apps served with other settings. */
let trusting: ReturnType<typeof createProductImageFetcher>;
const hits = new Map<string, number>();
/** Requests to /held wait here until the test answers them. */
const held: Array<() => void> = [];

beforeAll(async () => {
  api = await startTestApi({ workers: ['submission'] });
  tenant = await newTenant(api);
  const authority = testAuthority();
  images = createServer(
    { cert: readFileSync(authority.certFile), key: readFileSync(authority.keyFile) },
    (request, response) => {
      const path = request.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const send = (type: string, body: Buffer | string) => {
        response.writeHead(200, { 'content-type': type }).end(body);
      };
      if (path === '/mug.png') return send('image/png', png);
      if (path === '/mug.jpg') return send('image/jpeg', jpeg);
      if (path === '/large.png') return send('image/png', threeMegabytes);
      if (path === '/large-chunked.png') {
        // No content-length: the size shows only as the bytes arrive.
        response.writeHead(200, { 'content-type': 'image/png' });
        response.write(threeMegabytes.subarray(0, 1024 * 1024));
        response.write(threeMegabytes.subarray(1024 * 1024));
        return response.end();
      }
      if (path === '/slow.png') return setTimeout(() => send('image/png', png), 5_000).unref();
      if (path === '/held.png') return held.push(() => send('image/png', png));
      if (path === '/page.html') return send('text/html', '<html><body>Blue mug</body></html>');
      if (path === '/large-missing.png') return response.writeHead(404).end(threeMegabytes);
      if (path === '/moved.png') return response.writeHead(302, { location: '/mug.png' }).end();
      response.writeHead(404).end();
    },
  );
  const port = await new Promise<number>((resolve) =>
    images.listen(0, '127.0.0.1', () => resolve((images.address() as AddressInfo).port)),
  );
  origin = `https://127.0.0.1:${port}`;
  const ca = readFileSync(authority.caFile, 'utf8');
  trusting = createProductImageFetcher({ allowPrivate: true, ca });
  // The test settings allow loopback (WEBHOOK_ALLOW_PRIVATE); a second app runs as a deployment does.
  app = await serve(
    createApp({
      ...api.deps,
      productImages: createProductImageFetcher({ allowPrivate: true, ca, timeoutMs: 2000 }),
    }),
    { secure: true },
  );
  strictApp = await serve(
    createApp({ ...api.deps, productImages: createProductImageFetcher({ allowPrivate: false, ca }) }),
    { secure: true },
  );
});
afterAll(async () => {
  await Promise.all([app?.close(), strictApp?.close()]);
  images?.closeAllConnections();
  images?.close();
  await api.close();
});

const product = (image: string, name = 'Blue mug') => ({ name, quantity: 1, amount: 1500, image });
const put = (id: string, json: Json, on = app) =>
  callPort<Dispute>(on.port, 'PUT', `/v1/disputes/${id}`, { key: tenant.key, json });

async function storedImages(id: string) {
  return (await readStored(api, tenant, id)).productImages;
}

async function bytesOf(fileId: string | null): Promise<Buffer | undefined> {
  return (await postgresFileStorage(api.db.db).get(fileId ? [fileId] : [])).get(fileId ?? '');
}

async function productImageFiles() {
  return api.db.db
    .select({ id: files.id, type: files.type, purpose: files.purpose })
    .from(files)
    .where(and(eq(files.orgId, tenant.org), eq(files.purpose, 'product_image')));
}

describe('saving products fetches their images', () => {
  it('keeps PNG and JPEG images as files, notes every other outcome as a problem, and never fails the request', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const urls = [
      `${origin}/mug.png`,
      `${origin}/mug.jpg`,
      `${origin}/large.png`,
      `${origin}/large-chunked.png`,
      `${origin}/slow.png`,
      `${origin}/page.html`,
      `${origin}/missing.png`,
      `${origin}/moved.png`,
      `${origin}/large-missing.png`,
      `http://127.0.0.1:${new URL(origin).port}/mug.png`,
    ];
    const response = await put(dispute.id, {
      products: [...urls.map((url) => product(url)), product(urls[0] as string, 'Same image')],
    });
    expect(response.status, response.text).toBe(200);
    // product_images is the service's own: the dispute object does not show it.
    expect(Object.keys(response.body).sort()).toEqual([...disputeAttributes].sort());

    const stored = await storedImages(dispute.id);
    expect(stored.map(({ url, problem }) => ({ url, problem }))).toEqual([
      { url: urls[0], problem: null },
      { url: urls[1], problem: null },
      { url: urls[2], problem: 'larger than 2 MB' },
      { url: urls[3], problem: 'larger than 2 MB' },
      { url: urls[4], problem: 'no answer within 2 s' },
      { url: urls[5], problem: 'not a PNG or JPEG image' },
      { url: urls[6], problem: 'HTTP 404' },
      { url: urls[7], problem: 'HTTP 302' },
      { url: urls[8], problem: 'HTTP 404' },
      { url: urls[9], problem: 'not an https URL' },
    ]);
    expect(stored.slice(2).every((entry) => entry.file === null)).toBe(true);
    expect(await bytesOf(stored[0]?.file ?? null)).toEqual(png);
    expect(await bytesOf(stored[1]?.file ?? null)).toEqual(jpeg);
    const kept = await productImageFiles();
    expect(kept.filter((file) => file.id === stored[0]?.file || file.id === stored[1]?.file)).toEqual(
      expect.arrayContaining([
        { id: stored[0]?.file, type: 'png', purpose: 'product_image' },
        { id: stored[1]?.file, type: 'jpg', purpose: 'product_image' },
      ]),
    );
    // The same URL twice is fetched once; the plain http one never.
    expect(hits.get('/mug.png')).toBe(1);
  });

  it('fetches again only what failed; drops the entries of URLs no product names, and their files', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const mug = `${origin}/mug.png`;
    const side = `${origin}/mug.jpg`;
    const missing = `${origin}/gone.png`;
    await put(dispute.id, { products: [product(mug), product(side), product(missing)] });
    const first = await storedImages(dispute.id);
    const [pngHits, missingHits] = [hits.get('/mug.png'), hits.get('/gone.png')];

    const again = await put(dispute.id, { products: [product(mug), product(missing)] });
    expect(again.status, again.text).toBe(200);
    expect(hits.get('/mug.png')).toBe(pngHits);
    expect(hits.get('/gone.png')).toBe((missingHits ?? 0) + 1);
    expect(await storedImages(dispute.id)).toEqual([
      first[0],
      { url: missing, file: null, problem: 'HTTP 404' },
    ]);
    const ids = (await productImageFiles()).map((file) => file.id);
    expect(ids).toContain(first[0]?.file);
    expect(ids).not.toContain(first[1]?.file);

    // Products without images, or none at all, keep no images; other parameters leave them be.
    await put(dispute.id, { fields: { note: 'x' } });
    expect(await storedImages(dispute.id)).toHaveLength(2);
    await put(dispute.id, { products: [] });
    expect(await storedImages(dispute.id)).toEqual([]);
    expect((await productImageFiles()).map((file) => file.id)).not.toContain(first[0]?.file);
  });

  it('refuses a private address when private addresses are not allowed', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await put(dispute.id, { products: [product(`${origin}/mug.png`)] }, strictApp);
    expect(response.status, response.text).toBe(200);
    expect(await storedImages(dispute.id)).toEqual([
      { url: `${origin}/mug.png`, file: null, problem: 'refused: the address is private' },
    ]);
  });

  it('on create and on submit too', async () => {
    const params = requiredParams({ products: [product(`${origin}/mug.png`)] });
    const created = await callPort<Dispute>(app.port, 'POST', '/v1/disputes', {
      key: tenant.key,
      json: params,
    });
    expect(created.status, created.text).toBe(201);
    const [image] = await storedImages(params.id as string);
    expect(await bytesOf(image?.file ?? null)).toEqual(png);

    const { dispute } = await submittableDispute(api, tenant);
    const submitted = await callPort<Dispute>(app.port, 'POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { products: [product(`${origin}/mug.jpg`)] },
    });
    expect(submitted.status, submitted.text).toBe(201);
    const [kept] = await storedImages(dispute.id);
    expect(await bytesOf(kept?.file ?? null)).toEqual(jpeg);
  });

  it('keeps nothing when the request is refused', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const before = await snapshotTables(api.db.sql);
    const response = await put(dispute.id, {
      products: [product(`${origin}/mug.png`)],
      evidence_files: [{ file: 'file_00000000000000000000', category: 'receipt' }],
    });
    expectError(response, 400, 'invalid_evidence_files');
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('fetches before the dispute is locked: another change of the dispute goes through meanwhile', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const saving = put(dispute.id, { products: [product(`${origin}/held.png`)] });
    await expect.poll(() => held.length).toBe(1);
    const meanwhile = await put(dispute.id, { fields: { note: 'while the image loads' } });
    expect(meanwhile.status, meanwhile.text).toBe(200);
    held.shift()?.();
    const saved = await saving;
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.fields).toEqual({ note: 'while the image loads' });
    const [image] = await storedImages(dispute.id);
    expect(await bytesOf(image?.file ?? null)).toEqual(png);
  });

  it('keeps no image that would take the organisation past FILES_MAX_BYTES, and says so', async () => {
    const own = await newTenant(api);
    const small = await serve(
      createApp({ ...api.deps, productImages: trusting, filesMaxBytes: png.length }),
      { secure: true },
    );
    try {
      const dispute = await createTestDispute(api, own.key);
      const response = await callPort<Dispute>(small.port, 'PUT', `/v1/disputes/${dispute.id}`, {
        key: own.key,
        json: { products: [product(`${origin}/mug.png`), product(`${origin}/mug.jpg`)] },
      });
      expect(response.status, response.text).toBe(200);
      const [kept, refused] = (await readStored(api, own, dispute.id)).productImages;
      expect(await bytesOf(kept?.file ?? null)).toEqual(png);
      expect(refused).toEqual({
        url: `${origin}/mug.jpg`,
        file: null,
        problem: 'the organisation keeps FILES_MAX_BYTES of files already',
      });
    } finally {
      await small.close();
    }
  });
});
