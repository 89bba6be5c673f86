import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedAccounts } from '../../src/db/schema/index.js';
import {
  type AccountDeps,
  connectAccount,
  describeAccount,
  disconnectAccount,
  listAccounts,
  updateAccount,
} from '../../src/features/accounts/connected-accounts.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { sealedAt } from '../../src/features/secrets/sealed-columns.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { openQueues, type Queues } from '../../src/jobs/catalog.js';
import { syncSchedules } from '../../src/jobs/schedules.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { redisAt } from '../../src/redis-connection.js';
import { SecretBox } from '../../src/secrets.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * Connected accounts (features/accounts/connected-accounts.ts) and their mirror job schedulers: created, changed and removed
 * with the account, on a real Redis under this file's own prefix.
 */
let database: TestDatabase;
let queues: Queues;
let deps: AccountDeps;
let org: string;
const secrets = new SecretBox('accounts-test-secret-of-at-least-32-characters');

beforeAll(async () => {
  database = await createTestDatabase();
  queues = openQueues({ redis: redisAt(redisUrl), prefix: testRedisPrefix() });
  deps = {
    db: database.db,
    adapters: createAdapterRegistry(),
    secrets,
    scheduler: createQueueAccountScheduler(queues),
  };
  org = (await createOrganisation(database.db, { name: 'Accounts Test' })).org;
});
afterAll(async () => {
  for (const queue of Object.values(queues.byName)) await queue.obliterate({ force: true });
  await queues.close();
  await database.drop();
});

async function schedulerOf(uid: string) {
  const schedulers = await queues.byName.mirror.getJobSchedulers();
  const found = schedulers.find((scheduler) => scheduler.key === `mirror-${uid}`);
  return found && { every: found.every, name: found.name, data: found.template?.data };
}

describe('the mirror scheduler follows the account', () => {
  it('is created with the account, changed with its interval and status, and removed with it', async () => {
    const connected = await connectAccount(deps, { org, mode: 'test', id: 'lifecycle', processor: 'mock' });
    const { uid } = connected.account;
    expect(connected.schedule).toEqual({ state: 'scheduled', everySeconds: 60 });
    expect(await schedulerOf(uid)).toEqual({ every: 60_000, name: 'pollAccount', data: { accountUid: uid } });

    const slower = await updateAccount(deps, {
      org,
      mode: 'test',
      id: 'lifecycle',
      pollIntervalSeconds: 300,
    });
    expect(slower.schedule).toEqual({ state: 'scheduled', everySeconds: 300 });
    expect(await schedulerOf(uid)).toMatchObject({ every: 300_000 });

    expect(
      (await updateAccount(deps, { org, mode: 'test', id: 'lifecycle', status: 'disabled' })).schedule,
    ).toEqual({ state: 'removed' });
    expect(await schedulerOf(uid)).toBeUndefined();
    await updateAccount(deps, { org, mode: 'test', id: 'lifecycle', status: 'active' });
    expect(await schedulerOf(uid)).toMatchObject({ every: 300_000 });

    const gone = await disconnectAccount(deps, { org, mode: 'test', id: 'lifecycle' });
    expect(gone.schedule).toEqual({ state: 'removed' });
    expect(await schedulerOf(uid)).toBeUndefined();
    expect(await database.db.select().from(connectedAccounts).where(eq(connectedAccounts.uid, uid))).toEqual(
      [],
    );
  });

  it('with Redis unreachable the change is saved, and the schedule sync adds the scheduler later', async () => {
    const dead = openQueues({ redis: redisAt('redis://127.0.0.1:1'), prefix: queues.settings.prefix });
    for (const queue of Object.values(dead.byName)) queue.on('error', () => {});
    try {
      const connected = await connectAccount(
        { ...deps, scheduler: createQueueAccountScheduler(dead) },
        { org, mode: 'test', id: 'offline', processor: 'mock', pollIntervalSeconds: 30 },
      );
      expect(connected.schedule).toMatchObject({ state: 'pending', reason: expect.any(String) });
      expect(await schedulerOf(connected.account.uid)).toBeUndefined();

      await syncSchedules(database.db, queues, { deadlineSweepMs: 60_000, relaySweepMs: 30_000 });
      expect(await schedulerOf(connected.account.uid)).toMatchObject({ every: 30_000 });
    } finally {
      await Promise.race([dead.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
  });
});

describe('connecting', () => {
  it('seals credentials; listing shows the account without them', async () => {
    const credentials = JSON.stringify({ secret_key: 'sk_test_123' });
    const { account } = await connectAccount(deps, {
      org,
      mode: 'test',
      id: 'sealed',
      processor: 'mock',
      credentials,
      access: 'read_only',
    });
    expect(account.credentials).not.toContain('sk_test_123');
    expect(secrets.open(account.credentials ?? '', sealedAt('accountCredentials', account.uid))).toBe(
      credentials,
    );
    const listed = (await listAccounts(database.db, { org, mode: 'test' })).map(describeAccount);
    expect(listed.find((row) => row.account === 'sealed')).toEqual({
      org,
      mode: 'test',
      account: 'sealed',
      uid: expect.any(String),
      processor: 'mock',
      hook_path: null,
      access: 'read_only',
      base_url: null,
      poll_interval_seconds: 60,
      status: 'active',
      has_credentials: true,
      cursor: null,
      last_polled_at: null,
      last_error: null,
      created: expect.any(String),
    });
    expect(JSON.stringify(listed)).not.toContain('sk_test_123');
  });

  it.each([
    [{ processor: 'visa' }, "processor 'visa' cannot be connected: no adapter for it"],
    [{ processor: 'api' }, "processor 'api' cannot be connected: no adapter for it"],
    [{ mode: 'live' as const }, 'the mock processor can be connected in test mode only'],
    [{ org: 'org_nope' }, 'no organisation org_nope'],
    [{ pollIntervalSeconds: 5 }, 'invalid interval: must be at least 10 seconds'],
    [{ id: 'has space' }, 'invalid account name: must be 1-255 characters of A-Z a-z 0-9 _ - . :'],
    [{ baseUrl: 'ftp://proc.example' }, 'invalid base URL: must be an http(s) URL'],
    [
      { baseUrl: 'https://user:s3cret@proc.example' },
      'invalid base URL: must not carry credentials, a query or a fragment',
    ],
    [
      { baseUrl: 'https://proc.example/?key=1' },
      'invalid base URL: must not carry credentials, a query or a fragment',
    ],
    [
      {
        processor: 'vantiv',
        mode: 'live' as const,
        baseUrl: 'http://proc.example',
        credentials: '{"username":"u","password":"p","merchant_id":"1"}',
      },
      'invalid base URL: must be https for a live account',
    ],
    [
      {
        processor: 'vantiv',
        mode: 'live' as const,
        baseUrl: 'HTTP://proc.example',
        credentials: '{"username":"u","password":"p","merchant_id":"1"}',
      },
      'invalid base URL: must be https for a live account',
    ],
    [{ processor: 'stripe', credentials: '{"secret_key":"pk_test_1"}' }, 'invalid credentials for stripe: '],
    [{ processor: 'amex', access: 'read_only' as const }, 'amex accounts cannot be connected read-only'],
  ])('refuses %j: %s', async (change, message) => {
    const input = { org, mode: 'test' as const, id: 'refused', processor: 'mock', ...change };
    await expect(connectAccount(deps, input)).rejects.toThrow(message);
    expect(await listAccounts(database.db, { org })).not.toContainEqual(
      expect.objectContaining({ id: 'refused' }),
    );
  });

  it('refuses to make an account read-only when its processor does not allow it', async () => {
    await connectAccount(deps, { org, mode: 'test', id: 'amex-direct', processor: 'amex' });
    await expect(
      updateAccount(deps, { org, mode: 'test', id: 'amex-direct', access: 'read_only' }),
    ).rejects.toThrow('amex accounts cannot be connected read-only');
  });

  it('refuses a second account of the same name in the same mode', async () => {
    await connectAccount(deps, { org, mode: 'test', id: 'twice', processor: 'mock' });
    await expect(connectAccount(deps, { org, mode: 'test', id: 'twice', processor: 'mock' })).rejects.toThrow(
      `${org} already has an account 'twice' in test mode`,
    );
  });

  it('refuses to update or disconnect an account that is not there', async () => {
    await expect(
      updateAccount(deps, { org, mode: 'test', id: 'nobody', status: 'disabled' }),
    ).rejects.toThrow(`${org} has no account 'nobody' in test mode`);
    await expect(disconnectAccount(deps, { org, mode: 'live', id: 'nobody' })).rejects.toThrow(
      `${org} has no account 'nobody' in live mode`,
    );
  });
});
