import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  documents,
  events,
  fileContents,
  personalDataRequests,
  submissions,
} from '../../src/db/schema/index.js';
import { recordFile } from '../../src/features/files/records.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import {
  createTemplate,
  createTestDispute,
  type Dispute,
  daysFromNow,
  type Json,
  newTenant,
  readStored,
  type Tenant,
  timestampPattern,
  writeStored,
} from '../helpers/disputes.js';
import { samplePdf, samplePng } from '../helpers/evidence-files.js';
import { upload } from '../helpers/files.js';
import { imagesDrawn, pageTexts } from '../helpers/pdf-text.js';
import { expectApiError } from '../helpers/security.js';

/**
 * A personal data request and the person's files (docs/api.md, "Personal data requests"): the export
 * lists the files their disputes name; a removal deletes the files their own disputes name, records and
 * bytes, but keeps one another customer's dispute names too, redacts the files' descriptions and names,
 * and renders the response document again without the removed files, saying so.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const who = { name: 'Emmy Noether', email: 'emmy.noether@example.com' };
const removedProblem = 'removed by a personal-data request';

async function uploaded(bytes: Buffer, filename: string): Promise<string> {
  const response = await upload(api, tenant.key, bytes, filename);
  expect(response.status, response.text).toBe(201);
  return String(response.body.id);
}

/** A product image as the fetcher keeps one (its fetching is tested in product-images.test.ts). */
async function productImage(): Promise<string> {
  const row = await api.db.db.transaction((tx) =>
    recordFile(
      tx,
      postgresFileStorage(api.db.db),
      { orgId: tenant.org, livemode: false },
      {
        purpose: 'product_image',
        filename: 'product-image.png',
        type: 'png',
        pages: null,
        bytes: samplePng('Telescope'),
      },
    ),
  );
  return row.id;
}

/** A dispute of the tenant whose customer is `customer`, naming `evidenceFiles` and the template's fields. */
async function disputeOf(customer: { name: string; email: string }, json: Json): Promise<Dispute> {
  const created = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
  await writeStored(api, tenant, created.id, { customerName: customer.name, customerEmail: customer.email });
  const updated = await api.call<Dispute>('PUT', `/v1/disputes/${created.id}`, { key: tenant.key, json });
  expect(updated.status, updated.text).toBe(200);
  return updated.body;
}

const getFile = (id: string) => api.call('GET', `/v1/files/${id}`, { key: tenant.key });

async function storedContents(ids: string[]): Promise<string[]> {
  const rows = await api.db.db.select({ id: fileContents.fileId }).from(fileContents);
  return rows.map((row) => row.id).filter((id) => ids.includes(id));
}

async function documentOf(disputeUid: string) {
  const [row] = await api.db.db.select().from(documents).where(eq(documents.disputeUid, disputeUid));
  if (!row) throw new Error('no document');
  return row;
}

const cli = (...args: string[]) =>
  runCli(args, { DATABASE_URL: api.db.url, APP_SECRET: api.config.APP_SECRET ?? '' });

/** What the scenario made: the files, the two disputes, the document before the removal, the export. */
interface Scene {
  receipt: string;
  signature: string;
  messages: string;
  policy: string;
  letter: string;
  image: string;
  imageUrl: string;
  theirs: Dispute;
  other: Dispute;
  uid: string;
  before: Awaited<ReturnType<typeof documentOf>>;
  sizes: Map<string, number>;
  exported: Json[];
  summary: unknown;
}

/**
 * The person's dispute names four files of theirs (two evidence files, a `file` field, a product image)
 * and a refund policy another customer's dispute names too; that dispute also holds a letter whose
 * name and description mention the person. The person's dispute is submitted, the person's data
 * exported, then removed.
 */
async function scene(): Promise<Scene> {
  const template = await createTemplate(api, tenant.key, [
    { key: 'order_id', type: 'text', required: true },
    { key: 'signature', type: 'file' },
  ]);
  const receipt = await uploaded(samplePng('Receipt 4711'), 'receipt.png');
  const signature = await uploaded(samplePng('Signed', 300, 120), 'signature.png');
  const messages = await uploaded(await samplePdf('Messages', 3), 'messages.pdf');
  const policy = await uploaded(await samplePdf('Refund policy', 2), 'refund-policy.pdf');
  const letter = await uploaded(samplePng('Letter'), 'Emmy Noether letter.png');
  const image = await productImage();
  const imageUrl = 'https://shop.example/telescope.png';
  const theirs = await disputeOf(who, {
    template,
    fields: { order_id: 'A-1001', signature },
    evidence_files: [
      { file: receipt, category: 'receipt', description: 'Receipt signed by Emmy Noether' },
      { file: messages, category: 'customer_communication', description: null },
      { file: policy, category: 'refund_policy', description: 'Our refund policy' },
    ],
  });
  await writeStored(api, tenant, theirs.id, {
    products: [{ name: 'Telescope', quantity: 1, amount: 25_000, image: imageUrl }],
    productImages: [{ url: imageUrl, file: image, problem: null }],
  });
  const other = await disputeOf(
    { name: 'Ada Byron', email: 'ada.byron@example.com' },
    {
      evidence_files: [
        { file: policy, category: 'refund_policy', description: 'Our refund policy' },
        { file: letter, category: 'customer_communication', description: 'Letter from Emmy Noether' },
      ],
    },
  );
  const submitted = await api.call('POST', `/v1/disputes/${theirs.id}/submit`, { key: tenant.key });
  expect(submitted.status, submitted.text).toBe(201);
  const { uid } = await readStored(api, tenant, theirs.id);
  const before = await documentOf(uid);
  const sizes = new Map<string, number>();
  for (const id of [receipt, signature, messages, policy, letter, image]) {
    sizes.set(id, Number((await getFile(id)).body.size));
  }

  const asked = await api.call('POST', '/v1/personal-data/retrieve', {
    key: tenant.key,
    json: { ...who, notification_email: 'privacy@shop.example' },
  });
  expect(asked.status, asked.text).toBe(200);
  const exported = await cli('privacy', 'export', '--request', String(asked.body.id));
  expect(exported.code, exported.stderr).toBe(0);

  const removal = await api.call('POST', '/v1/personal-data/remove', { key: tenant.key, json: who });
  expect(removal.status, removal.text).toBe(200);
  const request = async () =>
    (
      await api.db.db
        .select()
        .from(personalDataRequests)
        .where(eq(personalDataRequests.id, String(removal.body.id)))
    )[0];
  // Waits, bounded, for the removal's job (expect.poll is for tests, not their setup).
  for (let waited = 0; !(await request())?.completedAt; waited += 100) {
    if (waited > 20_000) throw new Error('the removal did not run');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    receipt,
    signature,
    messages,
    policy,
    letter,
    image,
    imageUrl,
    theirs,
    other,
    uid,
    before,
    sizes,
    exported: (JSON.parse(exported.stdout) as { files?: Json[] }).files ?? [],
    summary: (await request())?.summary,
  };
}

const pagesOf = async (pdf: Buffer, label: string) =>
  (await pageTexts(pdf)).filter((page) => page.includes(`${label}, page`)).length;
const imagesIn = async (pdf: Buffer) => (await imagesDrawn(pdf)).reduce((sum, count) => sum + count, 0);

describe('personal data requests: the person’s files', () => {
  let made: Scene;
  beforeAll(async () => {
    made = await scene();
  }, 60_000);

  it('the export lists the files the disputes about the person name, what each is and who names it', () => {
    const { receipt, signature, messages, policy, letter, image, theirs, other, sizes } = made;
    const entry = (id: string, filename: string, type: string, pages: number | null, disputes: unknown) => ({
      id,
      filename,
      type,
      size: sizes.get(id),
      pages,
      purpose: id === image ? 'product_image' : 'dispute_evidence',
      created: expect.stringMatching(timestampPattern),
      disputes,
    });
    expect(made.exported).toEqual([
      entry(receipt, 'receipt.png', 'png', null, [theirs.id]),
      entry(signature, 'signature.png', 'png', null, [theirs.id]),
      entry(messages, 'messages.pdf', 'pdf', 3, [theirs.id]),
      entry(policy, 'refund-policy.pdf', 'pdf', 2, expect.arrayContaining([theirs.id, other.id])),
      entry(letter, 'Emmy Noether letter.png', 'png', null, [other.id]),
      entry(image, 'product-image.png', 'png', null, [theirs.id]),
    ]);
  });

  it('the removal deletes the files only the person’s disputes name, records and bytes, and keeps a shared one', async () => {
    const { receipt, signature, messages, image, policy, letter } = made;
    expect(made.summary).toMatchObject({ files: 4, filenames: 1 });
    const gone = [receipt, signature, messages, image];
    for (const id of gone) {
      expectApiError(await getFile(id), { status: 404, type: 'file_not_found', url: `/v1/files/${id}` });
    }
    expect(await storedContents(gone)).toEqual([]);
    expect((await getFile(policy)).body).toMatchObject({ id: policy, filename: 'refund-policy.pdf' });
    expect(await storedContents([policy, letter])).toHaveLength(2);
  });

  it('the disputes and the submission snapshot no longer name them; descriptions and names are redacted', async () => {
    const { policy, letter, theirs, other, uid, imageUrl } = made;
    const shared = { file: policy, category: 'refund_policy', description: 'Our refund policy' };
    const after = await api.call<Dispute>('GET', `/v1/disputes/${theirs.id}`, { key: tenant.key });
    expect(after.body.evidence_files).toEqual([shared]);
    expect(after.body.fields).toEqual({ order_id: 'A-1001' });
    expect((await readStored(api, tenant, theirs.id)).productImages).toEqual([
      { url: imageUrl, file: null, problem: removedProblem },
    ]);
    const otherAfter = await api.call<Dispute>('GET', `/v1/disputes/${other.id}`, { key: tenant.key });
    expect(otherAfter.body.evidence_files).toEqual([
      shared,
      { file: letter, category: 'customer_communication', description: 'Letter from [redacted]' },
    ]);
    expect((await getFile(letter)).body).toMatchObject({ id: letter, filename: '[redacted].png' });
    const [snapshot] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, uid));
    expect(snapshot?.evidence.evidenceFiles).toEqual([shared]);
    expect(snapshot?.evidence.fields).toEqual({ order_id: 'A-1001' });
  });

  it('the document is rendered again without them, saying so; the shared policy’s pages stay', async () => {
    const { uid, before } = made;
    const document = await documentOf(uid);
    expect(document.sha256).not.toBe(before.sha256);
    const [snapshot] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, uid));
    expect(snapshot?.documentSha256).toBe(document.sha256);
    const text = (await pageTexts(document.pdf)).join(' ');
    // The table may break the cell's words across lines.
    expect(text.match(/Removed by a personal- ?data request, not shown/g)).toHaveLength(3);
    expect(text).toContain(`Image not available: ${removedProblem}`);
    expect(text).not.toMatch(/Emmy|Noether/);
    // Three images fewer (the receipt, the signature, the product's thumbnail), the messages' pages gone.
    expect(await imagesIn(document.pdf)).toBe((await imagesIn(before.pdf)) - 3);
    expect([await pagesOf(before.pdf, 'Messages'), await pagesOf(document.pdf, 'Messages')]).toEqual([3, 0]);
    expect(await pagesOf(document.pdf, 'Refund policy')).toBe(2);
  });

  it('the response event lists only the files left, so no link leads to a removed one', async () => {
    const generated = await api.db.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.disputeUid, made.uid), eq(events.type, 'dispute.response.generated')));
    expect(generated.length).toBeGreaterThan(0);
    for (const event of generated) {
      expect((event.data.response_files as Json[]).map((file) => file.file)).toEqual([made.policy]);
    }
  });
});
