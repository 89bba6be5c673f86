import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';

/**
 * Submit requests waiting together for their jobs (src/jobs/submitter.ts): each wait listens for its own
 * job only, and leaves nothing behind. Node warns (MaxListenersExceededWarning) when more than 10
 * listeners gather on one emitter: a per-request listener on a shared emitter piles up under load.
 */
let api: TestApi;
let tenant: Tenant;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

beforeAll(async () => {
  // No workers: every submit waits its whole SUBMIT_WAIT_MS, so the waits overlap.
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '1500' } });
  tenant = await newTenant(api);
  process.on('warning', onWarning);
});
afterAll(async () => {
  process.off('warning', onWarning);
  await api.close();
});

describe('submit requests waiting at once', () => {
  it('25 waits add no listener past its own job, and none is left once they answer', async () => {
    const queue = api.queues.byName.submission;
    const events = api.queues.events('submission');
    const before = { closing: queue.listenerCount('closing'), names: events.eventNames().length };
    const ids: string[] = [];
    for (let n = 0; n < 25; n++) ids.push((await submittableDispute(api, tenant)).dispute.id);

    const answers = await Promise.all(
      ids.map((id) => api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key })),
    );

    for (const answer of answers) expect(answer.status, answer.text).toBe(202);
    // Node emits its warning on the next tick: let it arrive.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
    expect(queue.listenerCount('closing')).toBe(before.closing);
    expect(events.eventNames().length).toBe(before.names);
  });
});
