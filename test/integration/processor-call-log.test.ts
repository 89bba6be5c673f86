import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentLimits } from '../../src/config.js';
import { disputes, submissions } from '../../src/db/schema/index.js';
import { SubmissionRunner } from '../../src/features/submissions/runner.js';
import { createLogger, withLogContext } from '../../src/logger.js';
import { AccountGuards } from '../../src/processors/guard.js';
import { ProcessorHttp } from '../../src/processors/http.js';
import { FakeServer, jsonReply } from '../fakes/harness.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * What on-call reads when a processor call is held back: which processor, account and call, and which
 * submission it served (the submission run puts its id in the log context, so every line of it says it).
 */
const prefix = testRedisPrefix();
let redis: Redis;
let server: FakeServer;
let api: TestApi;
let tenant: Tenant;
let lines: Record<string, unknown>[] = [];
const logger = createLogger(
  'info',
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  }),
);

beforeAll(async () => {
  redis = new Redis(redisUrl);
  server = await new FakeServer(
    () => jsonReply(200, { ok: true }),
    (status, message) => jsonReply(status, { error: { message } }),
  ).start();
  // No workers, no wait: a submit request prepares the submission and leaves it to the runner below.
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '0' } });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await server.close();
  redis.disconnect();
  await dropKeys(redisUrl, prefix);
  await api.close();
});

describe('a processor call the rate limit holds back', () => {
  it('is logged as a warning naming the processor, the account, the call and the submission', async () => {
    const account = crypto.randomUUID();
    const guards = new AccountGuards(redis, prefix, logger, { maxWaitMs: 0 });
    const http = new ProcessorHttp({
      processor: 'example',
      baseUrl: server.url,
      guard: guards.for('example', account, 1),
      logger,
    });
    const call = { method: 'POST', path: 'disputes/dp_1/evidence?token=sk_secret_in_query' } as const;
    lines = [];
    await withLogContext({ submissionId: 'sub_00000000000000000001' }, async () => {
      // 1 a second with bursts of 2: the third call is held back.
      for (let sent = 0; sent < 2; sent++) await http.send(call);
      await expect(http.send(call)).rejects.toThrow('Rate limit of 1 calls a second');
    });

    const held = lines.filter((line) => line.msg === 'rate limit: processor call not sent');
    expect(held).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'rate limit: processor call not sent',
        processor: 'example',
        accountUid: account,
        method: 'POST',
        path: '/disputes/dp_1/evidence',
        submission_id: 'sub_00000000000000000001',
        perSecond: 1,
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('sk_secret_in_query');
  });
});

describe('a submission run', () => {
  it('writes every line with the submission id', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(202);
    const [row] = await api.db.db
      .select({ id: submissions.id })
      .from(submissions)
      .innerJoin(disputes, eq(disputes.uid, submissions.disputeUid))
      .where(eq(disputes.id, dispute.id));
    const submissionId = row?.id ?? '';
    lines = [];

    const runner = new SubmissionRunner({
      ...api.engine,
      logger,
      leaseMs: 5000,
      documentLimits: documentLimits(api.engine.config),
    });
    expect(await runner.run(submissionId, { failedTries: 0, final: false })).toEqual({
      status: 'succeeded',
    });

    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'submission succeeded', submission_id: submissionId }),
    ]);
  });
});
