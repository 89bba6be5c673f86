import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractFake } from '../../helpers/adapter-contract.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { type Dispute, newTenant, orderTemplate, type Tenant } from '../../helpers/disputes.js';
import { processorSpecs } from '../../helpers/processor-specs.js';
import { redisUrl } from '../../helpers/services.js';

/**
 * Each processor as an operator and a merchant meet it: the account connected with the CLI against the
 * processor's fake, its disputes brought in by the processor's own means (a poll by the mirror worker, its
 * signed pushes to /processor-hooks, or its report through `dispute import`), one answered through the API
 * and the submission worker, and a later change picked up the same way.
 */

let api: TestApi;
let tenant: Tenant;
let scratch: string;

beforeAll(async () => {
  api = await startTestApi({ workers: ['mirror', 'submission'] });
  tenant = await newTenant(api);
  scratch = await mkdtemp(join(tmpdir(), 'rebuttal-processors-'));
});
afterAll(async () => {
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  runCli(args, {
    DATABASE_URL: api.db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: api.config.QUEUE_PREFIX,
    APP_SECRET: api.config.APP_SECRET ?? '',
  });

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function disputeIn(id: string, states: string[]): Promise<Dispute> {
  return waitFor(`${id} in ${states.join('/')}`, async () => {
    const response = await api.call<Dispute>('GET', `/v1/disputes/${encodeURIComponent(id)}`, {
      key: tenant.key,
    });
    return response.status === 200 && states.includes(response.body.state) ? response.body : undefined;
  });
}

describe.each(Object.values(processorSpecs))('$processor, end to end', (spec) => {
  let fake: ContractFake;
  let ingest: (ids: string[]) => Promise<void>;
  let hookPath: string | null;

  beforeAll(async () => {
    fake = await spec.startFake();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('connects with the CLI and brings the disputes in by the processor’s own means', {
    timeout: 60_000,
  }, async () => {
    const credentialsFile = join(scratch, `${spec.processor}.json`);
    await writeFile(credentialsFile, JSON.stringify(spec.credentials));
    const connected = await cli([
      'account',
      'connect',
      '--org',
      tenant.org,
      '--mode',
      'test',
      '--processor',
      spec.processor,
      '--id',
      spec.processor,
      ...(spec.credentials === null ? [] : ['--credentials-file', credentialsFile]),
      '--base-url',
      fake.server.url,
      '--poll-seconds',
      '3600',
      '--json',
    ]);
    expect(connected.code, connected.stderr).toBe(0);
    const account = JSON.parse(connected.stdout) as { uid: string; hook_path: string | null };
    hookPath = account.hook_path;
    for (const value of Object.values(spec.credentials ?? {})) {
      if (typeof value === 'string' && value.length >= 6) expect(connected.stdout).not.toContain(value);
    }

    const adapter = api.engine.adapters.forProcessor(spec.processor);
    ingest = async (ids) => {
      if (adapter.capabilities.list) {
        const polled = await cli([
          'account',
          'poll-now',
          '--org',
          tenant.org,
          '--mode',
          'test',
          '--id',
          spec.processor,
        ]);
        expect(polled.code, polled.stderr).toBe(0);
      } else if (spec.push) {
        expect(account.hook_path).toBe(`/processor-hooks/${spec.processor}/${account.uid}`);
        for (const push of spec.push(fake, ids)) {
          const answer = await api.call('POST', account.hook_path as string, {
            raw: push.body,
            headers: push.headers,
          });
          expect(answer.status, answer.text).toBe(200);
        }
      } else if (spec.report) {
        const file = join(scratch, `${spec.processor}-report.csv`);
        await writeFile(file, spec.report(fake, ids));
        const imported = await cli([
          'dispute',
          'import',
          '--org',
          tenant.org,
          '--mode',
          'test',
          '--account',
          spec.processor,
          '--file',
          file,
        ]);
        expect(imported.code, imported.stderr).toBe(0);
      }
    };

    const ids = fake.addDisputes(3);
    await ingest(ids);
    for (const id of ids) {
      const dispute = await disputeIn(id, ['needs_response']);
      expect(dispute).toMatchObject({
        source: spec.processor,
        processor: spec.processor,
        account: spec.processor,
      });
    }
  });

  it('answers a dispute through the API and the submission worker', { timeout: 60_000 }, async () => {
    const [id] = fake.addDisputes(1) as [string];
    await ingest([id]);
    await disputeIn(id, ['needs_response']);
    const template = await orderTemplate(api, tenant.key);
    const submitted = await api.call<Dispute>('PUT', `/v1/disputes/${encodeURIComponent(id)}`, {
      key: tenant.key,
      json: { template, fields: { order_id: 'A-4711' }, submit: true },
    });
    expect([201, 202], submitted.text).toContain(submitted.status);
    await disputeIn(id, ['submitted']);

    const response = await api.call('GET', `/v1/disputes/${encodeURIComponent(id)}/response`, {
      key: tenant.key,
    });
    expect(response.status).toBe(200);
    expect(response.body.response_url).toEqual(expect.stringContaining('/v1/documents/doc_'));
    const adapter = api.engine.adapters.forProcessor(spec.processor);
    if (adapter.capabilities.submit === 'portal') {
      // Nothing reaches a processor without an API: the package waits for the merchant's upload.
      expect(fake.submissionCount(id)).toBe(0);
      return;
    }
    expect(fake.submissionCount(id)).toBe(1);
    if (adapter.capabilities.fileUpload) {
      // The very PDF the service stored and links to is the one the processor holds.
      const [stored] = await api.db.sql<{ pdf: Buffer }[]>`
        select documents.pdf from documents join disputes on disputes.uid = documents.dispute_uid
        where disputes.org_id = ${tenant.org} and disputes.id = ${id}`;
      const held = fake.submitted(id)?.files ?? [];
      expect(held.map((file) => file.toString('base64'))).toContain(stored?.pdf.toString('base64'));
    }
  });

  it('takes the processor’s signed push at once, and refuses a tampered one without enqueueing', {
    timeout: 60_000,
  }, async () => {
    const adapter = api.engine.adapters.forProcessor(spec.processor);
    if (!spec.push || !hookPath) {
      expect(adapter.capabilities.push).toBe(false);
      expect(hookPath).toBeNull();
      return;
    }
    const [id] = fake.addDisputes(1) as [string];
    const [push] = spec.push(fake, [id]);
    if (!push) throw new Error('no push');
    const jobs = async () =>
      Object.values(await api.queues.byName.mirror.getJobCounts()).reduce((a, b) => a + b, 0);
    const before = await jobs();
    const tampered = spec.tamper
      ? spec.tamper(push, id)
      : Buffer.from(push.body.toString('utf8').replace(id, `${id}0`));
    const refused = await api.call('POST', hookPath, { raw: tampered, headers: push.headers });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { type: 'invalid_request', status: 400 } });
    expect(await jobs()).toBe(before);

    // Paused: verified, then 503 for the processor to send again; a push that does not verify is still 400.
    const pause = (verb: 'pause' | 'resume') =>
      cli(['account', verb, '--org', tenant.org, '--mode', 'test', '--id', spec.processor]);
    expect((await pause('pause')).code).toBe(0);
    const later = await api.call('POST', hookPath, { raw: push.body, headers: push.headers });
    expect(later.status).toBe(503);
    expect(later.body).toMatchObject({ error: { type: 'unavailable', status: 503 } });
    expect((await api.call('POST', hookPath, { raw: tampered, headers: push.headers })).status).toBe(400);
    expect((await pause('resume')).code).toBe(0);

    const taken = await api.call('POST', hookPath, { raw: push.body, headers: push.headers });
    expect(taken.status, taken.text).toBe(200);
    await disputeIn(id, ['needs_response']);
  });

  it('picks up a closure the processor decides', { timeout: 60_000 }, async () => {
    const [id] = fake.addDisputes(1) as [string];
    await ingest([id]);
    await disputeIn(id, ['needs_response']);
    fake.move(id, 'won');
    await ingest([id]);
    await disputeIn(id, ['won']);
  });
});

describe('processor hooks', () => {
  it.each([
    ['an unknown processor', '/processor-hooks/visa/00000000-0000-4000-8000-000000000001'],
    ['an account that is not a uuid', '/processor-hooks/checkout/default'],
    ['an account that does not exist', '/processor-hooks/checkout/00000000-0000-4000-8000-000000000001'],
  ])('%s: 404 not_found', async (_, path) => {
    const answer = await api.call('POST', path, {
      raw: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      error: { type: 'not_found', status: 404, message: 'No such processor hook.' },
      livemode: false,
      url: path,
    });
  });

  it('only POST: 405 with Allow', async () => {
    const answer = await api.call('GET', '/processor-hooks/checkout/00000000-0000-4000-8000-000000000001');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });

  it('a body over 1 MiB: 413 request_too_large', async () => {
    const answer = await api.call('POST', '/processor-hooks/checkout/00000000-0000-4000-8000-000000000001', {
      raw: Buffer.alloc(1024 * 1024 + 10, 'a'),
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ error: { type: 'request_too_large', status: 413 } });
  });
});
