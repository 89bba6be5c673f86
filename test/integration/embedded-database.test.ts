import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInput, testDisputeInput } from '../../src/api/inputs/disputes.js';
import { createEndpointInput } from '../../src/api/inputs/webhook-endpoints.js';
import { secretsFor } from '../../src/composition.js';
import { type Config, documentLimits, loadConfig } from '../../src/config.js';
import { type Database, type Db, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import {
  apiKeys,
  connectedAccounts,
  disputes,
  documents,
  events,
  personalDataRequests,
  submissions,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from '../../src/db/schema/index.js';
import type { DocumentLimits } from '../../src/domain/document-size.js';
import { createTemplateInput } from '../../src/domain/templates.js';
import { connectAccount } from '../../src/features/accounts/connected-accounts.js';
import { acceptDispute, type DisputeDeps, updateDispute } from '../../src/features/disputes/commands.js';
import { createDispute } from '../../src/features/disputes/create.js';
import { sweepDeadlines } from '../../src/features/disputes/deadline-sweep.js';
import { createProductImageFetcher } from '../../src/features/disputes/product-images.js';
import { findDispute } from '../../src/features/disputes/records.js';
import { generateTestDispute } from '../../src/features/disputes/test-mode.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { importDisputeReport } from '../../src/features/mirroring/report-import.js';
import { mirrorPage } from '../../src/features/mirroring/write.js';
import {
  authInvalidationChannel,
  hashApiKey,
  keyInvalidation,
} from '../../src/features/organisations/api-keys.js';
import { KeyResolver } from '../../src/features/organisations/authenticate.js';
import {
  createOrganisation,
  rotateApiKey,
  updateOrganisationSettings,
} from '../../src/features/organisations/organisations.js';
import {
  carryOutRemoval,
  type RemovalDispatcher,
  requestRemoval,
} from '../../src/features/personal-data/removal.js';
import { readPersonalDataExport } from '../../src/features/personal-data/requests.js';
import { retrievePersonalData } from '../../src/features/personal-data/retrieval.js';
import { DocumentStore } from '../../src/features/responses/documents.js';
import { loadDocumentPdf } from '../../src/features/responses/retrieve.js';
import { listRules, setRules } from '../../src/features/rules/rules.js';
import type { QueuedDispute, SubmitOutcome, Submitter } from '../../src/features/submissions/port.js';
import { SubmissionRunner } from '../../src/features/submissions/runner.js';
import {
  createTemplate,
  deleteTemplate,
  importTemplates,
  listTemplates,
  retrieveTemplate,
  updateTemplate,
} from '../../src/features/templates/templates.js';
import type { Caller, Tenant } from '../../src/features/tenancy.js';
import { webhookDeliverer } from '../../src/features/webhooks/deliver.js';
import { redeliverDeliveries } from '../../src/features/webhooks/deliveries.js';
import { createEndpoint, deleteEndpoint, recordTestEvent } from '../../src/features/webhooks/endpoints.js';
import { redeliverEvent } from '../../src/features/webhooks/event-log.js';
import { eventsChannel } from '../../src/features/webhooks/events.js';
import { relayEvents } from '../../src/features/webhooks/relay.js';
import type { SendResult, WebhookSender } from '../../src/features/webhooks/send.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { openQueues, type Queues } from '../../src/jobs/catalog.js';
import { createQueueDeliveryDispatcher } from '../../src/jobs/delivery-dispatcher.js';
import { createQueueRemovalDispatcher } from '../../src/jobs/removal-dispatcher.js';
import type { EngineDeps } from '../../src/jobs/workers/deps.js';
import { startWorkers } from '../../src/jobs/workers/engine.js';
import { documentOnly } from '../../src/processors/evidence-limits.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { normalizedDispute } from '../../src/processors/normalized.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { redisAt } from '../../src/redis-connection.js';
import { AmexFake } from '../fakes/amex.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * The services on the embedded database (PGlite: Postgres in WebAssembly, one connection, in this process),
 * as `npm start` runs them with DATABASE_URL unset. What works on a Postgres server through a pool can hang
 * here: a query on the outer handle while a transaction is open waits for that transaction to end, and a
 * transaction that waits for such a query never ends. So every case has its own time limit, and a deadlock
 * fails that case instead of hanging the run. The start test (start.test.ts) covers list, template, attach,
 * submit, response PDF, queue, webhook delivery and restart; this file covers the rest, through the service
 * functions, and a few workers on the machine's Redis.
 */

/** A case that takes longer than this on one in-process connection is stuck, not slow. */
const caseLimit = 30_000;
/** Cases that render response PDFs or open a second embedded database. */
const slowCaseLimit = 90_000;

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const appSecret = 'embedded-test-app-secret-of-at-least-32-characters';

let dataDir: string;
let config: Config;
let database: Database;
let db: Db;
let queues: Queues;
let keys: KeyResolver;
const mock = new MockAdapter({ world: new MockDisputeWorld({ seed: 11, initialDisputes: 0, live: false }) });
const adapters = createAdapterRegistry({ mock });
let secrets: ReturnType<typeof secretsFor>['secrets'];
let links: ReturnType<typeof secretsFor>['links'];
let runner: SubmissionRunner;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-embedded-'));
  config = loadConfig({
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: testRedisPrefix(),
    APP_SECRET: appSecret,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    JOB_LOCK_SECONDS: '5',
    DEADLINE_SWEEP_SECONDS: '3600',
    SHUTDOWN_GRACE_SECONDS: '5',
    LOG_LEVEL: 'silent',
  });
  database = await openDatabase({ DATABASE_URL: undefined, DATA_DIR: dataDir });
  db = database.db;
  await runMigrations(db);
  ({ secrets, links } = secretsFor(appSecret, config));
  queues = openQueues({ redis: redisAt(redisUrl), prefix: config.QUEUE_PREFIX });
  keys = new KeyResolver(database, 30_000);
  await keys.listen();
  limits = documentLimits(config);
  runner = new SubmissionRunner({ db, adapters, secrets, logger, leaseMs: 30_000, documentLimits: limits });
}, 120_000);

afterAll(async () => {
  await keys?.close();
  await queues?.close();
  if (config) await dropKeys(redisUrl, config.QUEUE_PREFIX);
  await database?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

// ---------------------------------------------------------------------------------------------------------
// Helpers

/**
 * The Submitter as the service wires it, minus the queue: a submit runs the attempt in this process at once
 * (claim, render, store, call, record: every batched transaction of the runner); the rest is recorded.
 */
class InProcessSubmitter implements Submitter {
  readonly scheduled: QueuedDispute[] = [];
  readonly unscheduled: QueuedDispute[] = [];
  readonly dispatched: string[] = [];

  constructor(private readonly run: boolean) {}

  async submit(submissionId: string): Promise<SubmitOutcome> {
    if (!this.run) return { status: 'in_flight' };
    const result = await runner.run(submissionId, { failedTries: 0, final: true });
    if (result.status === 'failed') return { status: 'failed', message: result.message };
    return result.status === 'succeeded' ? result : { status: 'in_flight' };
  }
  async dispatch(submissionId: string): Promise<void> {
    this.dispatched.push(submissionId);
  }
  async schedule(dispute: QueuedDispute): Promise<void> {
    this.scheduled.push(dispute);
  }
  async unschedule(dispute: QueuedDispute): Promise<void> {
    this.unscheduled.push(dispute);
  }
  async retryFailed(): Promise<boolean> {
    return false;
  }
}

class RecordingRemovals implements RemovalDispatcher {
  readonly dispatched: string[] = [];
  async dispatch(requestId: string): Promise<void> {
    this.dispatched.push(requestId);
  }
}

/** The document size limits as configured: the defaults (docs/operations.md, "Configuration"). */
let limits: DocumentLimits;

const disputeDeps = (submitter: Submitter = new InProcessSubmitter(true)): DisputeDeps => ({
  db,
  adapters,
  submitter,
  logger,
  documentLimits: limits,
  productImages: createProductImageFetcher({ allowPrivate: true }),
  filesMaxBytes: config.FILES_MAX_BYTES,
});

interface Organisation {
  org: string;
  testKey: string;
  caller: Caller;
  tenant: Tenant;
}

/** A new organisation, and its test-mode caller as the API key resolver finds it. */
async function newOrganisation(name: string): Promise<Organisation> {
  const created = await createOrganisation(db, { name });
  const principal = await keys.resolve(created.test_key);
  if (!principal) throw new Error('the new test key does not resolve');
  return {
    org: created.org,
    testKey: created.test_key,
    caller: { ...principal, version: principal.apiVersion },
    tenant: { orgId: created.org, livemode: false },
  };
}

const day = 86_400_000;
/** An ISO timestamp `ms` from now, as clients send them. */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
let sequence = 0;
function uniqueId(prefix: string): string {
  sequence += 1;
  return `${prefix}_${sequence}_${Date.now().toString(36)}`;
}

/** A template with one required text field, and the fields that satisfy it. */
async function letterTemplate(tenant: Tenant, id = uniqueId('tpl')) {
  await createTemplate(
    db,
    tenant,
    createTemplateInput.parse({
      id,
      name: 'Letter',
      fields: [{ key: 'summary', type: 'text', required: true }],
      body: 'Summary: {{summary}}',
    }),
    limits,
  );
  return { template: id, fields: { summary: 'The goods were delivered on time.' } };
}

function createParams(overrides: Record<string, unknown> = {}) {
  return createInput.parse({
    id: uniqueId('dp_embedded'),
    charge: 'ch_embedded',
    reason: 'fraudulent',
    charged_at: '2024-01-02T03:04:05Z',
    disputed_at: '2024-02-03T04:05:06Z',
    due_by: fromNow(10 * day),
    currency: 'usd',
    amount: 2599,
    ...overrides,
  });
}

async function eventsOf(org: string, disputeId?: string) {
  const rows = await db
    .select({ id: events.id, type: events.type, data: events.data })
    .from(events)
    .where(eq(events.orgId, org))
    .orderBy(asc(events.createdAt), asc(events.id));
  return rows.filter((row) => disputeId === undefined || row.data.id === disputeId);
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A webhook sender that answers with `status` without any network, keeping what it was given. */
function fakeSender(status: number) {
  const sent: { url: string; headers: Record<string, string>; body: Record<string, unknown> }[] = [];
  const sender: WebhookSender = {
    async send(url, headers, body): Promise<SendResult> {
      sent.push({ url, headers, body: JSON.parse(body) as Record<string, unknown> });
      return { ok: status < 300, status, error: null, durationMs: 3 };
    },
    close() {},
  };
  return { sender, sent };
}

// ---------------------------------------------------------------------------------------------------------

describe('organisations and API keys', () => {
  it(
    'a rotated key stops resolving at once, and a key revoked elsewhere is dropped by its notification',
    async () => {
      const organisation = await newOrganisation('Keys');
      const heard: string[] = [];
      const stop = await database.listen(authInvalidationChannel, (payload) => heard.push(payload));
      try {
        const fresh = (await rotateApiKey(db, { org: organisation.org, mode: 'test' }))?.key;
        expect(fresh).toMatch(/^test_/);
        // This process drops the old key when the rotation commits...
        expect(await keys.resolve(organisation.testKey)).toBeNull();
        expect(await keys.resolve(fresh ?? '')).toMatchObject({ orgId: organisation.org, livemode: false });
        // ...and tells every listener, this connection included, once it has committed.
        const oldHash = hashApiKey(organisation.testKey);
        await until('the rotation notification', async () =>
          heard.includes(keyInvalidation(oldHash)) ? true : undefined,
        );
        const rows = await db.select().from(apiKeys).where(eq(apiKeys.orgId, organisation.org));
        expect(rows.filter((row) => !row.livemode)).toHaveLength(2);
        expect(rows.filter((row) => !row.livemode && row.revokedAt === null)).toHaveLength(1);

        // Another process revokes the fresh key: only its notification can drop the cached answer.
        const freshHash = hashApiKey(fresh ?? '');
        expect(await keys.resolve(fresh ?? '')).not.toBeNull();
        await db.transaction(async (tx) => {
          await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.hash, freshHash));
          await tx.execute(sql`select pg_notify(${authInvalidationChannel}, ${keyInvalidation(freshHash)})`);
        });
        await until('the cached key to be dropped', async () =>
          (await keys.resolve(fresh ?? '')) === null ? true : undefined,
        );
      } finally {
        await stop();
      }
    },
    caseLimit,
  );

  it(
    'a settings change reaches the cached keys of the organisation',
    async () => {
      const organisation = await newOrganisation('Settings');
      expect(organisation.caller.queueLeadMinutes).not.toBe(7 * 60);
      const settings = await updateOrganisationSettings(db, organisation.org, { queueLeadHours: 7 });
      expect(settings.queue_lead_hours).toBe(7);
      expect(await keys.resolve(organisation.testKey)).toMatchObject({ queueLeadMinutes: 7 * 60 });
      await expect(rotateApiKey(db, { org: 'org_missing', mode: 'live' })).resolves.toBeNull();
    },
    caseLimit,
  );
});

describe('templates', () => {
  it(
    'are created, listed page by page, updated, imported whole or not at all, and deleted',
    async () => {
      const { tenant } = await newOrganisation('Templates');
      const first = await createTemplate(
        db,
        tenant,
        createTemplateInput.parse({ id: 'tpl_a', name: 'A' }),
        limits,
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      await createTemplate(db, tenant, createTemplateInput.parse({ id: 'tpl_b', name: 'B' }), limits);
      await expect(
        createTemplate(db, tenant, createTemplateInput.parse({ id: 'tpl_a', name: 'again' }), limits),
      ).rejects.toThrow(/already exists/);

      const page = await listTemplates(db, tenant, { limit: 1 });
      expect(page).toMatchObject({ hasMore: true, data: [{ id: 'tpl_b' }] });
      const next = await listTemplates(db, tenant, { limit: 1, startingAfter: 'tpl_b' });
      expect(next).toMatchObject({ hasMore: false, data: [{ id: 'tpl_a' }] });

      const updated = await updateTemplate(db, tenant, 'tpl_a', { description: 'changed' }, limits);
      expect(updated).toMatchObject({ id: 'tpl_a', name: 'A', description: 'changed' });
      expect(updated.version).toBeGreaterThan(first.version);

      const imported = await importTemplates(
        db,
        tenant,
        [
          createTemplateInput.parse({ id: 'tpl_b', name: 'B2' }),
          createTemplateInput.parse({ id: 'tpl_c', name: 'C' }),
        ],
        limits,
      );
      expect(imported.map(({ template, action }) => `${template.id} ${action}`)).toEqual([
        'tpl_b updated',
        'tpl_c created',
      ]);
      // A refused entry refuses the whole import: its earlier entries are not written either.
      await expect(
        importTemplates(
          db,
          tenant,
          [
            createTemplateInput.parse({ id: 'tpl_c', name: 'C2' }),
            createTemplateInput.parse({ id: 'tpl_d', name: 'D' }),
            createTemplateInput.parse({ id: 'tpl_b', name: 'B3' }),
            createTemplateInput.parse({ id: 'tpl_d', name: 'twice' }),
          ],
          limits,
        ),
      ).rejects.toThrow(/index 3/);
      expect((await retrieveTemplate(db, tenant, 'tpl_c')).name).toBe('C');

      await deleteTemplate(db, tenant, 'tpl_a');
      await expect(retrieveTemplate(db, tenant, 'tpl_a')).rejects.toThrow();
      expect((await listTemplates(db, tenant, { limit: 10 })).data.map((row) => row.id)).toEqual([
        'tpl_c',
        'tpl_b',
      ]);
    },
    caseLimit,
  );
});

describe('workflow rules', () => {
  it(
    'are set whole or not at all, and act on disputes as they arrive',
    async () => {
      const { org, tenant, caller } = await newOrganisation('Rules');
      const { template } = await letterTemplate(tenant);
      const rules = [
        { name: 'Letter for fraud', when: { reason: 'fraudulent' }, action: 'template', template },
        { name: 'Review duplicates', when: { reason: 'duplicate' }, action: 'review' },
      ];
      await setRules(db, { org, mode: 'test', contents: JSON.stringify({ rules }) });
      await expect(
        setRules(db, {
          org,
          mode: 'test',
          contents: JSON.stringify({
            rules: [{ when: { reason: 'general' }, action: 'template', template: 'tpl_missing' }],
          }),
        }),
      ).rejects.toThrow(/tpl_missing/);
      expect(await listRules(db, { org, mode: 'test' })).toMatchObject([
        { order: 1, action: 'template', template },
        { order: 2, action: 'review', template: null },
      ]);

      const fraud = await generateTestDispute(db, caller, testDisputeInput.parse({ reason: 'fraudulent' }));
      expect(fraud.dispute).toMatchObject({ state: 'needs_response', template });
      const duplicate = await generateTestDispute(
        db,
        caller,
        testDisputeInput.parse({ reason: 'duplicate' }),
      );
      expect(duplicate.dispute).toMatchObject({ state: 'requires_review', template: null });
      const created = await createDispute(disputeDeps(), caller, createParams({ reason: 'fraudulent' }));
      expect(created.dispute.template).toBe(template);

      // Sorted: events of transactions in the same millisecond tie on created_at.
      const announced = await eventsOf(org);
      expect(
        announced.map((event) => `${event.type} ${event.data.state} ${event.data.template}`).sort(),
      ).toEqual([
        `dispute.created needs_response ${template}`,
        `dispute.created needs_response ${template}`,
        'dispute.created requires_review null',
      ]);
    },
    caseLimit,
  );
});

describe('disputes', () => {
  it(
    'accepting records the change and its event once',
    async () => {
      const { org, caller } = await newOrganisation('Accept');
      const deps = disputeDeps();
      const { dispute } = await createDispute(deps, caller, createParams());
      const accepted = await acceptDispute(deps, caller, dispute.id);
      expect(accepted).toMatchObject({ outcome: 'accepted', dispute: { state: 'accepted', submitAt: null } });
      const again = await acceptDispute(deps, caller, dispute.id);
      expect(again.dispute.version).toBe(accepted.dispute.version);
      // Sorted: events of transactions in the same millisecond tie on created_at.
      expect(
        (await eventsOf(org, dispute.id)).map((event) => `${event.type} ${event.data.state}`).sort(),
      ).toEqual(['dispute.created needs_response', 'dispute.updated accepted']);
    },
    caseLimit,
  );

  it(
    'a submission stores its response document, and a stored document reads back as the bytes sent',
    async () => {
      const { org, tenant, caller } = await newOrganisation('Documents');
      const evidence = await letterTemplate(tenant);
      const submitted = await createDispute(
        disputeDeps(),
        caller,
        createParams({ ...evidence, submit: true }),
      );
      expect(submitted).toMatchObject({ outcome: 'submitted', dispute: { state: 'submitted' } });
      const [submission] = await db
        .select()
        .from(submissions)
        .where(eq(submissions.disputeUid, submitted.dispute.uid));
      expect(submission).toMatchObject({ status: 'succeeded' });
      expect(submission?.documentId).toMatch(/^doc_/);
      // Events of one transaction share their time: compared as a set.
      expect((await eventsOf(org, submitted.dispute.id)).map((event) => event.type).sort()).toEqual([
        'dispute.created',
        'dispute.response.generated',
        'dispute.submitted',
      ]);

      // What a retry of the same attempt sends (the stored document), and what the download serves: bytes
      // that adapters encode (`pdf.toString('base64')`, Adyen and the remote mock) as they do on a server.
      const { dispute, template } = await findDispute(db, tenant, submitted.dispute.id);
      if (!submission) throw new Error('no submission');
      const stored = await new DocumentStore(db, postgresFileStorage(db), limits).responseFor({
        submission,
        dispute,
        template,
        files: [],
        limits: documentOnly,
      });
      const [row] = await db.select().from(documents).where(eq(documents.submissionId, submission.id));
      expect(stored.document.sha256).toBe(row?.sha256);
      expect(Buffer.isBuffer(stored.document.pdf)).toBe(true);
      expect(Buffer.from(stored.document.pdf.toString('base64'), 'base64').subarray(0, 5).toString()).toBe(
        '%PDF-',
      );
      const download = await loadDocumentPdf(db, submission.documentId ?? '');
      expect(Buffer.isBuffer(download?.pdf)).toBe(true);
      expect(download?.pdf.toString('latin1').startsWith('%PDF-')).toBe(true);
    },
    slowCaseLimit,
  );
});

describe('personal data', () => {
  it(
    'a retrieve exports what is held, and a removal redacts it and deletes the export',
    async () => {
      const { org, tenant, caller } = await newOrganisation('Privacy');
      const evidence = await letterTemplate(tenant);
      const generated = await generateTestDispute(db, caller, testDisputeInput.parse({}));
      const name = generated.dispute.customerName ?? '';
      const email = generated.dispute.customerEmail ?? '';
      const submitted = await updateDispute(disputeDeps(), caller, generated.dispute.id, {
        ...evidence,
        force: false,
        submit: true,
      });
      expect(submitted.dispute.state).toBe('submitted');

      const retrieved = await retrievePersonalData({ db, secrets }, tenant, {
        email,
        name,
        notification_email: 'dpo@example.com',
      });
      expect(retrieved.summary).toMatchObject({ disputes: 1, submissions: 1, documents: 1 });
      const exported = (await readPersonalDataExport(db, secrets, retrieved.id)) as {
        disputes: { id: string }[];
      };
      expect(exported.disputes.map((dispute) => dispute.id)).toEqual([generated.dispute.id]);

      const removals = new RecordingRemovals();
      const request = await requestRemoval({ db, secrets, removals }, tenant, { email, name });
      expect(removals.dispatched).toEqual([request.id]);
      const outcome = await carryOutRemoval({ db, secrets }, request.id);
      expect(outcome).toMatchObject({
        status: 'removed',
        summary: { disputes: 1, documents: 1, exports: 1 },
      });
      const [redacted] = await db.select().from(disputes).where(eq(disputes.uid, generated.dispute.uid));
      expect(redacted).toMatchObject({ customerName: null, customerEmail: null });
      const [done] = await db
        .select()
        .from(personalDataRequests)
        .where(eq(personalDataRequests.id, request.id));
      expect(done?.completedAt).toBeInstanceOf(Date);
      expect(done?.subject).toBeNull();
      await expect(readPersonalDataExport(db, secrets, retrieved.id)).rejects.toThrow(/deleted/);
      const mentions = await db
        .select({ id: events.id })
        .from(events)
        .where(and(eq(events.orgId, org), sql`${events.data}::text ilike ${`%${email}%`}`));
      expect(mentions).toEqual([]);
      expect(await carryOutRemoval({ db, secrets }, request.id)).toEqual({ status: 'done_before' });
    },
    slowCaseLimit,
  );
});

describe('the deadline sweep', () => {
  it(
    'hands over what waits, and announces due soon and overdue disputes once each',
    async () => {
      const { org, tenant, caller } = await newOrganisation('Sweep');
      const evidence = await letterTemplate(tenant);
      const deps = disputeDeps(new InProcessSubmitter(false));
      const soon = await createDispute(deps, caller, createParams({ due_by: fromNow(3_600_000) }));
      const late = await createDispute(deps, caller, createParams({ due_by: fromNow(-3_600_000) }));
      // Queued a lead of ten days before a deadline two days away: due now.
      const queued = await createDispute(
        deps,
        { ...caller, queueLeadMinutes: 10 * 24 * 60 },
        createParams({ ...evidence, queue: true, due_by: fromNow(2 * day) }),
      );
      expect(queued.dispute.state).toBe('queued');
      // A submission whose job never ran, and a removal whose job never ran.
      const pending = await createDispute(deps, caller, createParams({ ...evidence, submit: true }));
      expect(pending).toMatchObject({ outcome: 'in_progress', dispute: { state: 'compiling_evidence' } });
      const removal = await requestRemoval({ db, secrets, removals: new RecordingRemovals() }, tenant, {
        email: 'nobody@example.com',
        name: 'No Body',
      });
      await new Promise((resolve) => setTimeout(resolve, 20));

      const submitter = new InProcessSubmitter(false);
      const removals = new RecordingRemovals();
      const sweep = () =>
        sweepDeadlines({ db, submitter, removals, dueSoonMs: day, lookaheadMs: 0, unattendedAfterMs: 0 });
      const first = await sweep();
      expect(submitter.scheduled.map((slot) => slot.uid)).toContain(queued.dispute.uid);
      const [attempt] = await db
        .select({ id: submissions.id })
        .from(submissions)
        .where(eq(submissions.disputeUid, pending.dispute.uid));
      expect(submitter.dispatched).toContain(attempt?.id);
      expect(removals.dispatched).toContain(removal.id);
      expect(first.dueSoon).toBeGreaterThanOrEqual(1);
      expect(first.overdue).toBeGreaterThanOrEqual(1);

      await sweep();
      const announced = (await eventsOf(org))
        .filter((event) => event.type === 'dispute.due_soon' || event.type === 'dispute.overdue')
        .map((event) => `${event.type} ${event.data.id}`);
      expect(announced.sort()).toEqual(
        [`dispute.due_soon ${soon.dispute.id}`, `dispute.overdue ${late.dispute.id}`].sort(),
      );
    },
    caseLimit,
  );
});

describe('mirroring and imports', () => {
  it(
    'a page is written with its events and cursor, once, and rules act on its new disputes',
    async () => {
      const { org, tenant } = await newOrganisation('Mirror');
      const { template } = await letterTemplate(tenant);
      await setRules(db, {
        org,
        mode: 'test',
        contents: JSON.stringify({
          rules: [{ when: { reason: 'fraudulent' }, action: 'template', template }],
        }),
      });
      const { account } = await connectAccount(
        { db, adapters, scheduler: createQueueAccountScheduler(queues) },
        { org, mode: 'test', processor: 'mock', pollIntervalSeconds: 3600 },
      );
      const dueBy = new Date(Date.now() + 5 * day);
      const news = (id: string, state: 'needs_response' | 'won', reason: 'fraudulent' | 'general') =>
        normalizedDispute({
          id,
          state,
          reason,
          kind: 'chargeback',
          amount: 1234,
          currency: 'usd',
          dueBy,
          customerName: 'Mira Page',
        });
      const first = await mirrorPage(
        db,
        { ...account, cursor: null },
        [news('dp_m1', 'needs_response', 'fraudulent'), news('dp_m2', 'needs_response', 'general')],
        'cursor-1',
        { logger },
      );
      expect(first).toMatchObject({ outcome: 'mirrored', created: 2, updated: 0 });
      const stored = await db
        .select()
        .from(disputes)
        .where(eq(disputes.orgId, org))
        .orderBy(asc(disputes.id));
      expect(stored.map((row) => `${row.id} ${row.state} ${row.template} ${row.amount}`)).toEqual([
        `dp_m1 needs_response ${template} 1234`,
        'dp_m2 needs_response null 1234',
      ]);
      const [moved] = await db.select().from(connectedAccounts).where(eq(connectedAccounts.uid, account.uid));
      expect(moved?.cursor).toBe('cursor-1');
      expect(moved?.lastPolledAt).toBeInstanceOf(Date);

      // Listed again from the old cursor: another run got there first.
      expect(await mirrorPage(db, { ...account, cursor: null }, [], 'cursor-x')).toEqual({
        outcome: 'stale',
      });
      const second = await mirrorPage(
        db,
        { ...account, cursor: 'cursor-1' },
        [news('dp_m1', 'needs_response', 'fraudulent'), news('dp_m2', 'won', 'general')],
        'cursor-2',
      );
      expect(second).toMatchObject({ outcome: 'mirrored', created: 0, updated: 1, closed: 1, unchanged: 1 });
      expect((await eventsOf(org)).map((event) => `${event.type} ${event.data.id}`).sort()).toEqual([
        'dispute.closed dp_m2',
        'dispute.created dp_m1',
        'dispute.created dp_m2',
        'dispute.updated dp_m2',
      ]);
    },
    caseLimit,
  );

  it(
    'a dispute report is imported like a page, and importing it again writes nothing',
    async () => {
      const { org } = await newOrganisation('Import');
      const connected = await connectAccount(
        { db, adapters, scheduler: createQueueAccountScheduler(queues) },
        { org, mode: 'test', id: 'amex', processor: 'amex' },
      );
      expect(connected.schedule.state).toBe('unpolled');
      const amex = new AmexFake();
      const csv = amex.report(amex.addDisputes(3));
      const input = { org, mode: 'test' as const, account: 'amex', csv };
      const first = await importDisputeReport({ db, adapters, logger }, input);
      expect(first).toMatchObject({ outcome: 'mirrored', rows: 3, created: 3, updated: 0 });
      const again = await importDisputeReport({ db, adapters, logger }, input);
      expect(again).toMatchObject({ rows: 3, created: 0, updated: 0, unchanged: 3 });
      const stored = await db.select().from(disputes).where(eq(disputes.orgId, org));
      expect(stored.map((row) => `${row.source} ${row.account} ${row.state}`)).toEqual(
        Array(3).fill('amex amex needs_response'),
      );
      expect((await eventsOf(org)).map((event) => event.type)).toEqual(Array(3).fill('dispute.created'));
    },
    caseLimit,
  );
});

describe('webhooks', () => {
  it(
    'events are relayed to endpoints, delivered, retried, redelivered, and announced on commit',
    async () => {
      const { org, tenant, caller } = await newOrganisation('Webhooks');
      let notifications = 0;
      const stop = await database.listen(eventsChannel, () => {
        notifications += 1;
      });
      try {
        const endpointInput = createEndpointInput(true);
        const good = await createEndpoint(
          { db, secrets, webhookEndpointsMax: config.WEBHOOK_ENDPOINTS_MAX },
          { ...tenant, apiVersion: caller.apiVersion },
          endpointInput.parse({ url: 'http://127.0.0.1:9/good', events: ['dispute.created'] }),
        );
        const bad = await createEndpoint(
          { db, secrets, webhookEndpointsMax: config.WEBHOOK_ENDPOINTS_MAX },
          { ...tenant, apiVersion: caller.apiVersion },
          endpointInput.parse({ url: 'http://127.0.0.1:9/bad', events: ['dispute.created'] }),
        );
        const { dispute } = await generateTestDispute(db, caller, testDisputeInput.parse({}));
        await until('the events notification', async () => (notifications > 0 ? true : undefined));

        const report = await relayEvents({ db, deliveries: createQueueDeliveryDispatcher(queues) });
        expect(report.queued).toBeGreaterThanOrEqual(2);
        const deliveries = await db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.orgId, org))
          .orderBy(asc(webhookDeliveries.endpointId));
        expect(deliveries.map((row) => row.status)).toEqual(['pending', 'pending']);
        const byEndpoint = new Map(deliveries.map((row) => [row.endpointId, row]));
        const goodDelivery = byEndpoint.get(good.endpoint.id);
        const badDelivery = byEndpoint.get(bad.endpoint.id);
        if (!goodDelivery || !badDelivery) throw new Error('a delivery is missing');

        const ok = fakeSender(200);
        const delivered = await webhookDeliverer({ db, secrets, links, sender: ok.sender })(
          goodDelivery.id,
          1,
        );
        expect(delivered).toEqual({ status: 'succeeded', httpStatus: 200 });
        expect(ok.sent[0]?.body).toMatchObject({
          id: goodDelivery.id,
          type: 'dispute.created',
          dispute: dispute.id,
        });
        expect(ok.sent[0]?.headers['webhook-signature']).toMatch(/^v1,/);

        const failing = fakeSender(500);
        const failed = await webhookDeliverer({ db, secrets, links, sender: failing.sender })(
          badDelivery.id,
          1,
        );
        expect(failed).toMatchObject({ status: 'retry' });
        const after = new Map(
          (
            await db
              .select()
              .from(webhookDeliveries)
              .where(inArray(webhookDeliveries.id, [goodDelivery.id, badDelivery.id]))
          ).map((row) => [row.id, row]),
        );
        expect(after.get(goodDelivery.id)).toMatchObject({
          status: 'succeeded',
          attempts: 1,
          lastStatus: 200,
        });
        expect(after.get(badDelivery.id)).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500 });
        expect(after.get(badDelivery.id)?.nextAttemptAt?.getTime()).toBeGreaterThan(Date.now());
        const attempts = await db
          .select()
          .from(webhookAttempts)
          .where(inArray(webhookAttempts.deliveryId, [goodDelivery.id, badDelivery.id]));
        expect(attempts.map((attempt) => attempt.status).sort()).toEqual([200, 500]);
        const [failingEndpoint] = await db
          .select()
          .from(webhookEndpoints)
          .where(eq(webhookEndpoints.id, bad.endpoint.id));
        expect(failingEndpoint?.failingSince).toBeInstanceOf(Date);

        // Sent again: the event's delivered delivery restarts, and the relay queues it.
        const logged = await redeliverEvent(db, tenant, goodDelivery.eventId);
        expect(logged.deliveries.find((row) => row.id === goodDelivery.id)).toMatchObject({
          status: 'pending',
        });
        expect(
          (await relayEvents({ db, deliveries: createQueueDeliveryDispatcher(queues) })).queued,
        ).toBeGreaterThanOrEqual(2);
        await webhookDeliverer({ db, secrets, links, sender: ok.sender })(goodDelivery.id, 1);
        const redelivery = await redeliverDeliveries(db, tenant, { delivery: goodDelivery.id });
        expect(redelivery.redelivered.map((row) => row.id)).toEqual([goodDelivery.id]);
        expect(redelivery.redelivered[0]?.attempts).toBe(2);

        const testEvent = await recordTestEvent(db, tenant, good.endpoint.id);
        const testDeliveries = await db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.eventId, testEvent.event.id));
        expect(testDeliveries).toMatchObject([{ endpointId: good.endpoint.id, status: 'pending' }]);

        await deleteEndpoint(db, tenant, good.endpoint.id);
        await deleteEndpoint(db, tenant, bad.endpoint.id);
        expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.orgId, org))).toEqual([]);
      } finally {
        await stop();
      }
    },
    caseLimit,
  );
});

describe('many at once', () => {
  it(
    'concurrent submits, arrivals, relays and sweeps all finish on the one connection',
    async () => {
      const { org, tenant, caller } = await newOrganisation('Concurrent');
      const evidence = await letterTemplate(tenant);
      const deps = disputeDeps();
      // The runner's claims, document stores and outcomes of these submits share batched transactions
      // (db/batcher.ts), interleaved with everyone else's.
      const work = await Promise.all([
        ...Array.from({ length: 8 }, () =>
          createDispute(deps, caller, createParams({ ...evidence, submit: true })),
        ),
        ...Array.from({ length: 4 }, () => generateTestDispute(db, caller, testDisputeInput.parse({}))),
        relayEvents({ db, deliveries: createQueueDeliveryDispatcher(queues) }),
        sweepDeadlines({
          db,
          submitter: new InProcessSubmitter(false),
          removals: new RecordingRemovals(),
          dueSoonMs: day,
          lookaheadMs: 0,
          unattendedAfterMs: 3_600_000,
        }),
      ]);
      expect(work).toHaveLength(14);
      const stored = await db.select().from(disputes).where(eq(disputes.orgId, org));
      expect(stored.filter((row) => row.state === 'submitted')).toHaveLength(8);
      const attempts = await db.select().from(submissions).where(eq(submissions.orgId, org));
      expect(attempts.map((attempt) => attempt.status)).toEqual(Array(8).fill('succeeded'));
      const pdfs = await db.select({ id: documents.id }).from(documents).where(eq(documents.orgId, org));
      expect(pdfs).toHaveLength(8);
    },
    slowCaseLimit,
  );
});

describe('workers on the embedded database', () => {
  it(
    'the webhook and deadline workers deliver an event and carry out a removal',
    async () => {
      const received: Record<string, unknown>[] = [];
      const receiver: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
          res.writeHead(200).end();
        });
      });
      receiver.listen(0, '127.0.0.1');
      await once(receiver, 'listening');
      const port = (receiver.address() as AddressInfo).port;
      const workerPrefix = testRedisPrefix();
      const workerQueues = openQueues({ redis: redisAt(redisUrl), prefix: workerPrefix });
      const engine: EngineDeps = {
        db,
        listen: database.listen,
        queues: workerQueues,
        adapters,
        secrets,
        links,
        logger,
        config,
      };
      const workers = await startWorkers(engine, ['deadline', 'webhook']);
      try {
        const { tenant, caller } = await newOrganisation('Workers');
        await createEndpoint(
          { db, secrets, webhookEndpointsMax: config.WEBHOOK_ENDPOINTS_MAX },
          { ...tenant, apiVersion: caller.apiVersion },
          createEndpointInput(true).parse({
            url: `http://127.0.0.1:${port}/hook`,
            events: ['dispute.created'],
          }),
        );
        const { dispute } = await generateTestDispute(db, caller, testDisputeInput.parse({}));
        const event = await until('the webhook', async () =>
          received.find((body) => body.dispute === dispute.id),
        );
        expect(event).toMatchObject({ type: 'dispute.created' });

        const request = await requestRemoval(
          { db, secrets, removals: createQueueRemovalDispatcher({ queues: workerQueues, logger }) },
          tenant,
          { email: dispute.customerEmail ?? '', name: dispute.customerName ?? '' },
        );
        const done = await until('the removal', async () => {
          const [row] = await db
            .select()
            .from(personalDataRequests)
            .where(eq(personalDataRequests.id, request.id));
          return row?.completedAt ? row : undefined;
        });
        expect(done.summary).toMatchObject({ disputes: 1 });
      } finally {
        await workers.close(5000);
        await workerQueues.close();
        await dropKeys(redisUrl, workerPrefix);
        receiver.close();
      }
    },
    slowCaseLimit,
  );
});

/** A process that opens the embedded database in `argv[1]`, commits an organisation, and dies. */
const killedWithDatabaseOpen = `
import { openDatabase } from './src/db/client.ts';
import { runMigrations } from './src/db/migrate.ts';
import { createOrganisation } from './src/features/organisations/organisations.ts';
const database = await openDatabase({ DATABASE_URL: undefined, DATA_DIR: process.argv[1] });
await runMigrations(database.db);
console.log((await createOrganisation(database.db, { name: 'Killed' })).org);
process.kill(process.pid, 'SIGKILL');
`;

/** Opens the embedded database, holds it a moment, and says whether it could (a process of its own). */
const openAndHold = `
import { openDatabase } from './src/db/client.ts';
try {
  const database = await openDatabase({ DATABASE_URL: undefined, DATA_DIR: process.argv[1] });
  console.log('OPENED');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await database.close();
} catch (error) {
  console.log(String(error.message));
}
`;

describe('the lock on the data directory', () => {
  it(
    "of two processes finding a dead process's lock at once, one takes it over and the other is refused",
    async () => {
      const other = await mkdtemp(join(tmpdir(), 'rebuttal-embedded-stale-'));
      try {
        // A pid no process has any more.
        const gone = spawn('true');
        await once(gone, 'exit');
        await writeFile(join(other, 'pg.lock'), String(gone.pid));
        const run = () =>
          promisify(execFile)(
            process.execPath,
            ['--import', 'tsx', '--input-type=module', '-e', openAndHold, other],
            {
              cwd: process.cwd(),
              timeout: 60_000,
            },
          ).then(({ stdout }) => stdout.trim());
        const outcomes = await Promise.all([run(), run()]);
        expect(outcomes.filter((outcome) => outcome === 'OPENED')).toHaveLength(1);
        expect(outcomes.filter((outcome) => /is in use by process \d+/.test(outcome))).toHaveLength(1);
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    },
    slowCaseLimit,
  );

  it(
    'a second opener in this process is refused while the database is open, which stays usable',
    async () => {
      await expect(openDatabase({ DATABASE_URL: undefined, DATA_DIR: dataDir })).rejects.toThrow(
        /in use by this process/,
      );
      expect(await readFile(join(dataDir, 'pg.lock'), 'utf8')).toBe(String(process.pid));
      const [row] = await db.select({ count: sql<number>`count(*)`.mapWith(Number) }).from(disputes);
      expect(row?.count).toBeGreaterThan(0);
    },
    caseLimit,
  );

  it(
    'of two opens started together in this process, one opens and the other is refused',
    async () => {
      const other = await mkdtemp(join(tmpdir(), 'rebuttal-embedded-twice-'));
      try {
        const opens = await Promise.allSettled([
          openDatabase({ DATABASE_URL: undefined, DATA_DIR: other }),
          openDatabase({ DATABASE_URL: undefined, DATA_DIR: other }),
        ]);
        const opened = opens.flatMap((open) => (open.status === 'fulfilled' ? [open.value] : []));
        const refused = opens.flatMap((open) => (open.status === 'rejected' ? [String(open.reason)] : []));
        await Promise.all(opened.map((open) => open.close()));
        expect(opened).toHaveLength(1);
        expect(refused).toEqual([expect.stringMatching(/in use by this process/)]);
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    },
    slowCaseLimit,
  );

  it(
    'another running process holding the lock is named, with what to do instead',
    async () => {
      const other = await mkdtemp(join(tmpdir(), 'rebuttal-embedded-held-'));
      try {
        // The test runner's parent: a process that is certainly running, and not this one.
        await writeFile(join(other, 'pg.lock'), String(process.ppid));
        await expect(openDatabase({ DATABASE_URL: undefined, DATA_DIR: other })).rejects.toThrow(
          `the embedded database in ${join(other, 'pg')} is in use by process ${process.ppid} (a running \`npm start\`); ` +
            'stop it first, or set DATABASE_URL to a Postgres server that several processes can share',
        );
        expect(await readFile(join(other, 'pg.lock'), 'utf8')).toBe(String(process.ppid));
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    },
    caseLimit,
  );

  it(
    'the lock and data of a process killed with the database open are taken over, its commits kept',
    async () => {
      const other = await mkdtemp(join(tmpdir(), 'rebuttal-embedded-killed-'));
      try {
        // `npm start` killed (SIGKILL, an OOM kill): no close, the lock file left naming a dead pid.
        const killed = await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', killedWithDatabaseOpen, other],
          { cwd: process.cwd(), timeout: 60_000 },
        ).then(
          () => undefined,
          (error: { signal?: string; stdout?: string }) => error,
        );
        expect(killed?.signal).toBe('SIGKILL');
        const org = killed?.stdout?.trim() ?? '';
        expect(org).toMatch(/^org_/);
        const holder = Number(await readFile(join(other, 'pg.lock'), 'utf8'));
        expect(holder).not.toBe(process.pid);

        const reopened = await openDatabase({ DATABASE_URL: undefined, DATA_DIR: other });
        try {
          expect(await readFile(join(other, 'pg.lock'), 'utf8')).toBe(String(process.pid));
          await runMigrations(reopened.db);
          const keys = await reopened.db.select().from(apiKeys).where(eq(apiKeys.orgId, org));
          expect(keys).toHaveLength(2);
        } finally {
          await reopened.close();
        }
        await expect(readFile(join(other, 'pg.lock'), 'utf8')).rejects.toThrow(/ENOENT/);
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    },
    slowCaseLimit,
  );
});
