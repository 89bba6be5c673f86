import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedAccounts } from '../../src/db/schema/index.js';
import { connectAccount } from '../../src/features/accounts/connected-accounts.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { enqueue } from '../../src/jobs/enqueue.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, type Tenant } from '../helpers/disputes.js';

/**
 * The mirror queue end to end, with the mirror worker running in this process: a connected account's
 * scheduler polls the mock processor and its disputes appear in the API; failures are retried or not as
 * the error says, and are shown on the account.
 */
let api: TestApi;
let tenant: Tenant;
const world = new MockDisputeWorld({ seed: 11, initialDisputes: 120, live: false });
beforeAll(async () => {
  api = await startTestApi({ workers: ['mirror'], mock: new MockAdapter({ world }) });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

async function account(uid: string) {
  const [row] = await api.db.db.select().from(connectedAccounts).where(eq(connectedAccounts.uid, uid));
  return row;
}

describe('a connected account', () => {
  it("is polled by its scheduler, and its disputes are listed by the API in the account's name", async () => {
    const { account: connected } = await connectAccount(
      { db: api.db.db, adapters: api.engine.adapters, scheduler: createQueueAccountScheduler(api.queues) },
      { org: tenant.org, mode: 'test', processor: 'mock', pollIntervalSeconds: 10 },
    );

    // The run pages through all 120 (two pages, each committed with its cursor) before the list is read.
    await expect.poll(async () => (await account(connected.uid))?.cursor, { timeout: 10_000 }).toBe('120.0');
    expect((await account(connected.uid))?.lastPolledAt).toBeInstanceOf(Date);
    const listed = await api.call<{ data: Record<string, unknown>[]; has_more: boolean }>(
      'GET',
      '/v1/disputes',
      {
        key: tenant.key,
        query: { limit: 100, account: 'default' },
      },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(100);
    expect(listed.body.has_more).toBe(true);
    expect(listed.body.data[0]).toMatchObject({ source: 'mock', processor: null, account: 'default' });
  });

  it('whose processor has no list call fails its job at once, and says why on the account', async () => {
    const [row] = await api.db.db
      .insert(connectedAccounts)
      .values({ orgId: tenant.org, livemode: true, id: 'amex-main', processor: 'amex', status: 'active' })
      .returning();
    if (!row) throw new Error('no account');
    const job = await enqueue(api.queues, 'pollAccount', { accountUid: row.uid });

    await expect.poll(async () => (await job.getState()) as string, { timeout: 10_000 }).toBe('failed');
    const failed = await api.queues.byName.mirror.getJob(job.id ?? '');
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toBe("no adapter lists disputes of 'amex' accounts");
    expect((await account(row.uid))?.lastError).toBe("no adapter lists disputes of 'amex' accounts");
  });
});
