import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fakes/harness.js';
import { type StripeFake, startStripeFake } from '../fakes/stripe.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { getDispute, newTenant, orderTemplate, type Tenant } from '../helpers/disputes.js';
import { connectStripeFake, type StripeAccount } from '../helpers/mirroring.js';
import { startWorkerProcess, storesOf, type WorkerProcess } from '../helpers/processes.js';

/**
 * A submission whose processor compares a keyed request's bytes with the first one (docs/operations.md,
 * "Faults"): the attempt uploads its document, the update after it fails, the worker is killed, and a
 * worker started afterwards finishes the job. Its upload must be the first one byte for byte, so that
 * Stripe replays it instead of refusing the key.
 */
let api: TestApi;
let tenant: Tenant;
let fake: StripeFake;
let stripe: StripeAccount;
const running: WorkerProcess[] = [];

beforeAll(async () => {
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '200' } });
  tenant = await newTenant(api);
  fake = await startStripeFake({ idempotency: 'bytes' });
  stripe = await connectStripeFake(api, tenant.org, fake);
});
afterEach(() => {
  for (const worker of running.splice(0)) worker.child.kill('SIGKILL');
  fake.server.clearFaults();
});
afterAll(async () => {
  await fake.close();
  await api.close();
});

async function worker(): Promise<WorkerProcess> {
  const started = await startWorkerProcess({
    ...storesOf(api),
    WORKERS: 'submission',
    JOB_LOCK_SECONDS: '2',
    DEADLINE_SWEEP_SECONDS: '3600',
  });
  running.push(started);
  return started;
}

const updateOf = (id: string) => (request: Pick<FakeRequest, 'method' | 'path'>) =>
  request.method === 'POST' && request.path === `/v1/disputes/${id}`;

describe('a submission retried by another worker after a failure past the upload', () => {
  it('sends the same upload bytes under the same key: Stripe replays it, one file, one submission', {
    timeout: 90_000,
  }, async () => {
    const [id] = fake.addDisputes(1) as [string];
    const polled = await stripe.poll();
    expect(polled).toMatchObject({ outcome: 'polled', created: 1 });
    const template = await orderTemplate(api, tenant.key);
    const answered = await api.call('PUT', `/v1/disputes/${id}`, {
      key: tenant.key,
      json: { template, fields: { order_id: 'A-4711' } },
    });
    expect(answered.status, answered.text).toBe(200);

    fake.server.inject({ kind: 'unavailable', times: 1000, match: updateOf(id) });
    const submitted = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(202);
    const first = await worker();
    await expect
      .poll(() => fake.server.requests.filter(updateOf(id)).length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    fake.server.clearFaults();
    await worker();
    await expect
      .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 30_000 })
      .toBe('submitted');

    const uploads = fake.received.filter((call) => call.path === '/v1/files');
    expect(uploads.length).toBeGreaterThanOrEqual(2);
    const [once, ...again] = uploads as [FakeRequest, ...FakeRequest[]];
    for (const upload of again) {
      expect(upload.headers['idempotency-key']).toBe(once.headers['idempotency-key']);
      expect(upload.headers['content-type']).toBe(once.headers['content-type']);
      expect(upload.body.equals(once.body)).toBe(true);
    }
    const file = (fake.dispute(id).evidence as Record<string, string>).uncategorized_file ?? '';
    expect(file).toMatch(/^file_/);
    expect(
      fake.filesNamed(
        `response-${id}-${String(once.headers['idempotency-key']).replace(/-document$/, '')}.pdf`,
      ),
    ).toBe(1);
    expect(fake.submissionCount(id)).toBe(1);
    expect((await getDispute(api, tenant.key, id)).submitted_count).toBe(1);
  });
});
