import { request } from 'node:https';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileContents, files } from '../../src/db/schema/index.js';
import type { EvidenceFileCategory, EvidenceFileEntry, FileType } from '../../src/domain/evidence-files.js';
import { recordFile } from '../../src/features/files/records.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { RemoteMockAdapter } from '../../src/processors/mock/remote-adapter.js';
import type { NormalizedDispute } from '../../src/processors/types.js';
import { startFakeMockProcessor } from '../fakes/mock-processor.js';
import { contractAccount, contractSubmission } from '../helpers/adapter-contract.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  newTenant,
  submittableDispute,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';
import { contractFiles, sampleJpeg, samplePdf, samplePng } from '../helpers/evidence-files.js';
import { receivingEndpoint } from '../helpers/webhooks.js';

/**
 * The evidence files of a response package (docs/api.md, "Documents"): listed by GET …/response and the
 * dispute.response.generated event, each behind a signed link of its own, whatever the processor.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ env: { SUBMIT_WAIT_MS: '5000' } });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

interface Stored {
  id: string;
  bytes: Buffer;
}

/** Keeps a file for the tenant, as an upload would (the upload API is another part's). */
async function storedFile(bytes: Buffer, type: FileType, filename: string, owner = tenant): Promise<Stored> {
  const row = await api.db.db.transaction((tx) =>
    recordFile(
      tx,
      postgresFileStorage(api.db.db),
      { orgId: owner.org, livemode: false },
      {
        purpose: 'dispute_evidence',
        filename,
        type,
        pages: type === 'pdf' ? 3 : null,
        bytes,
      },
    ),
  );
  return { id: row.id, bytes };
}

/** A submittable dispute naming these files in `evidence_files`, submitted: its response package. */
async function submittedWith(entries: EvidenceFileEntry[], fields: Record<string, string> = {}) {
  const { dispute } = await submittableDispute(api, tenant);
  await writeStored(api, tenant, dispute.id, {
    evidenceFiles: entries,
    fields: { order_id: 'A-1001', ...fields },
  });
  const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
  expect(submitted.status, submitted.text).toBe(201);
  const response = await api.call<{ files: Listed[] }>('GET', `/v1/disputes/${dispute.id}/response`, {
    key: tenant.key,
  });
  expect(response.status, response.text).toBe(200);
  return { dispute, files: response.body.files };
}

interface Listed {
  file: string;
  filename: string;
  category: EvidenceFileCategory;
  description: string | null;
  type: FileType;
  size: number;
  url: string;
}

const entry = (file: Stored, category: EvidenceFileCategory, description: string | null = null) => ({
  file: file.id,
  category,
  description,
});

/** GETs a link over HTTPS with no key, as a portal upload form or a browser would. */
function download(link: string, method = 'GET') {
  const { pathname, search } = new URL(link);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(
        `${api.origin}${pathname}${search}`,
        { method, rejectUnauthorized: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

const json = (body: Buffer) => JSON.parse(body.toString('utf8'));

describe('the files of a response package', () => {
  it('lists each file the submission carried with a signed link that downloads it as an attachment', async () => {
    const receipt = await storedFile(samplePng('Receipt 4711'), 'png', 'receipt "4711".png');
    const delivery = await storedFile(sampleJpeg('Delivery'), 'jpg', 'delivery.jpg');
    const messages = await storedFile(await samplePdf('Messages', 3), 'pdf', 'messages.pdf');
    const { dispute, files: listed } = await submittedWith([
      entry(receipt, 'receipt', 'Receipt e-mailed on 2026-09-28'),
      entry(delivery, 'shipping_documentation'),
      entry(messages, 'customer_communication', 'All messages'),
    ]);

    expect(listed).toEqual([
      {
        file: receipt.id,
        filename: 'receipt "4711".png',
        category: 'receipt',
        description: 'Receipt e-mailed on 2026-09-28',
        type: 'png',
        size: receipt.bytes.length,
        url: expect.stringMatching(
          new RegExp(
            `^https://localhost:${api.config.PORT}/v1/files/${receipt.id}/download\\?expires=\\d+&signature=`,
          ),
        ),
      },
      {
        file: delivery.id,
        filename: 'delivery.jpg',
        category: 'shipping_documentation',
        description: null,
        type: 'jpg',
        size: delivery.bytes.length,
        url: expect.stringContaining(`/v1/files/${delivery.id}/download?`),
      },
      {
        file: messages.id,
        filename: 'messages.pdf',
        category: 'customer_communication',
        description: 'All messages',
        type: 'pdf',
        size: messages.bytes.length,
        url: expect.stringContaining(`/v1/files/${messages.id}/download?`),
      },
    ]);
    const expected = [
      [receipt, 'image/png', `filename="receipt _4711_.png"; filename*=UTF-8''receipt%20%224711%22.png`],
      [delivery, 'image/jpeg', `filename="delivery.jpg"; filename*=UTF-8''delivery.jpg`],
      [messages, 'application/pdf', `filename="messages.pdf"; filename*=UTF-8''messages.pdf`],
    ] as const;
    for (const [index, [file, type, name]] of expected.entries()) {
      const answer = await download(listed[index]?.url ?? '');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe(type);
      expect(answer.headers['content-disposition']).toBe(`attachment; ${name}`);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['cache-control']).toBe('private, no-store');
      expect(answer.body.equals(file.bytes)).toBe(true);
    }
    // The mock processor received the same files, bytes and all.
    const [sent] = acceptedSubmissions(api, dispute.id);
    const received = sent?.request.files.map((file) => [file.id, file.category, file.bytes]);
    expect(received).toEqual([
      [receipt.id, 'receipt', receipt.bytes],
      [delivery.id, 'shipping_documentation', delivery.bytes],
      [messages.id, 'customer_communication', messages.bytes],
    ]);
  });

  it("lists a template field's file as uncategorized, described by the field's key", async () => {
    const signature = await storedFile(samplePng('Signature'), 'png', 'signature.png');
    const template = `tpl_files_${Date.now()}`;
    const created = await api.call('POST', '/v1/templates', {
      key: tenant.key,
      json: {
        id: template,
        fields: [
          { key: 'order_id', type: 'text' },
          { key: 'signed_receipt', type: 'file' },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const { dispute } = await submittableDispute(api, tenant);
    await writeStored(api, tenant, dispute.id, {
      template,
      fields: { order_id: 'A-1001', signed_receipt: signature.id },
    });
    const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(201);
    const response = await api.call<{ files: Listed[] }>('GET', `/v1/disputes/${dispute.id}/response`, {
      key: tenant.key,
    });
    expect(response.body.files).toEqual([
      {
        file: signature.id,
        filename: 'signature.png',
        category: 'uncategorized',
        description: 'signed_receipt',
        type: 'png',
        size: signature.bytes.length,
        url: expect.stringContaining(`/v1/files/${signature.id}/download?`),
      },
    ]);
  });

  it('answers files: [] for a submission without files', async () => {
    const { files: listed } = await submittedWith([]);
    expect(listed).toEqual([]);
  });

  it('leaves out a file deleted since, whose old link answers 404 not_found', async () => {
    const kept = await storedFile(samplePng('Kept'), 'png', 'kept.png');
    const removed = await storedFile(samplePng('Removed'), 'png', 'removed.png');
    const { dispute, files: before } = await submittedWith([
      entry(kept, 'receipt'),
      entry(removed, 'refund_policy'),
    ]);
    await api.db.db.delete(fileContents).where(eq(fileContents.fileId, removed.id));
    await api.db.db.delete(files).where(eq(files.id, removed.id));
    const gone = await download(before[1]?.url ?? '');
    expect(gone.status).toBe(404);
    expect(json(gone.body)).toEqual({
      url: new URL(before[1]?.url ?? '').pathname,
      livemode: false,
      error: { status: 404, type: 'not_found', message: 'No such file.' },
    });
    const after = await api.call<{ files: Listed[] }>('GET', `/v1/disputes/${dispute.id}/response`, {
      key: tenant.key,
    });
    expect(after.body.files.map((file) => file.file)).toEqual([kept.id]);
  });
});

describe('signed file links', () => {
  let link: URL;
  let responseUrl: URL;
  beforeAll(async () => {
    const file = await storedFile(samplePng('Linked'), 'png', 'linked.png');
    const { dispute, files: listed } = await submittedWith([entry(file, 'receipt')]);
    link = new URL(listed[0]?.url ?? '');
    const response = await api.call('GET', `/v1/disputes/${dispute.id}/response`, { key: tenant.key });
    responseUrl = new URL(String(response.body.response_url));
  });

  const variant = (change: (url: URL) => void) => {
    const url = new URL(link);
    change(url);
    return url.toString();
  };

  it.each([
    [
      'another signature',
      (url: URL) => url.searchParams.set('signature', `x${url.searchParams.get('signature')?.slice(1)}`),
    ],
    [
      'a later expiry',
      (url: URL) => url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600)),
    ],
    [
      'another file',
      (url: URL) => (url.pathname = url.pathname.replace(/file_[0-9a-z]{20}/, 'file_aaaaaaaaaaaaaaaaaaaa')),
    ],
    ['no signature', (url: URL) => url.searchParams.delete('signature')],
  ])('refuses a link with %s: 403 invalid_link', async (_name, change) => {
    const url = variant(change);
    const answer = await download(url);
    expect(answer.status).toBe(403);
    expect(json(answer.body)).toEqual({
      url: new URL(url).pathname,
      livemode: false,
      error: { status: 403, type: 'invalid_link', message: 'This file link is not valid.' },
    });
  });

  it("refuses a document link's signature on a file, and a file link's on a document", async () => {
    const fileId = link.pathname.split('/').at(-2) ?? '';
    const documentId = responseUrl.pathname.split('/').at(-1) ?? '';
    // The same id signed as the other kind: a document signature over a file's id does not open the file.
    const documentSigned = new URL(api.deps.links.url(fileId));
    const asFile = `${link.origin}${link.pathname}${documentSigned.search}`;
    const refusedFile = await download(asFile);
    expect(refusedFile.status).toBe(403);
    expect(json(refusedFile.body).error.type).toBe('invalid_link');
    const fileSigned = new URL(api.deps.links.fileUrl(documentId));
    const refusedDocument = await download(
      `${responseUrl.origin}${responseUrl.pathname}${fileSigned.search}`,
    );
    expect(refusedDocument.status).toBe(403);
    expect(json(refusedDocument.body).error).toEqual({
      status: 403,
      type: 'invalid_link',
      message: 'This document link is not valid.',
    });
  });

  it('refuses an expired link: 403 invalid_link', async () => {
    const fileId = link.pathname.split('/').at(-2) ?? '';
    const old = api.deps.links.fileUrl(fileId, new Date(Date.now() - 2 * 3600_000));
    const answer = await download(old);
    expect(answer.status).toBe(403);
    expect(json(answer.body).error).toEqual({
      status: 403,
      type: 'invalid_link',
      message: 'This file link has expired.',
    });
  });

  it('answers 405 to other methods and 403 insecure_connection over plain HTTP', async () => {
    const post = await download(link.toString(), 'POST');
    expect(post.status).toBe(405);
    expect(json(post.body)).toMatchObject({ error: { type: 'method_not_allowed' } });
    const plain = await api.callPlain('GET', `${link.pathname}${link.search}`);
    expect(plain.status).toBe(403);
    expect(plain.body).toMatchObject({ error: { type: 'insecure_connection' } });
  });
});

describe('dispute.response.generated', () => {
  it('lists the files with links signed for the delivery', async () => {
    const other = await newTenant(api);
    const endpoint = await receivingEndpoint(api, other.key, { events: ['dispute.response.generated'] });
    const file = await storedFile(samplePng('Hooked'), 'png', 'hooked.png', other);
    const { dispute } = await submittableDispute(api, other);
    await writeStored(api, other, dispute.id, {
      evidenceFiles: [entry(file, 'receipt', 'From the hook')],
      fields: { order_id: 'A-1001' },
    });
    const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: other.key });
    expect(submitted.status, submitted.text).toBe(201);
    const [hook] = await endpoint.receiver.waitFor(1);
    expect(hook?.payload.files).toEqual([
      {
        file: file.id,
        filename: 'hooked.png',
        category: 'receipt',
        description: 'From the hook',
        type: 'png',
        size: file.bytes.length,
        url: expect.stringContaining(`/v1/files/${file.id}/download?`),
      },
    ]);
    const [hooked] = (hook?.payload.files ?? []) as Listed[];
    const answer = await download(String(hooked?.url));
    expect(answer.status).toBe(200);
    expect(answer.body.equals(file.bytes)).toBe(true);
    await endpoint.receiver.close();
  });
});

describe('the mock processor over HTTP', () => {
  it('receives the evidence files with their bytes', async () => {
    const fake = await startFakeMockProcessor();
    try {
      const adapter = new RemoteMockAdapter(fake.url);
      const connection = { account: contractAccount, credentials: null, baseUrl: null, readOnly: false };
      const dispute = { id: 'dp_remote_files', charge: 'ch_remote_files' } as NormalizedDispute;
      const sent = { ...contractSubmission(dispute, connection, 'sub_remote'), files: await contractFiles() };
      await adapter.submitEvidence(sent);
      const held = fake.desk.accepted.get('sub_remote');
      expect(held?.request.files).toEqual(sent.files);
    } finally {
      await fake.close();
    }
  });
});
