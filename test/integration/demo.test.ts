import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedAccounts, organisations } from '../../src/db/schema/index.js';
import { prepareDemo } from '../../src/demo.js';
import { disconnectAccount } from '../../src/features/accounts/connected-accounts.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { openQueues, type Queues } from '../../src/jobs/catalog.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { redisAt } from '../../src/redis-connection.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { redisUrl, testRedisPrefix } from '../helpers/services.js';

/** The demo of the first start: made once, reused after, mended when a start was cut short. */

let database: TestDatabase;
let queues: Queues;
let dataDir: string;
const deps = () => ({
  db: database.db,
  adapters: createAdapterRegistry(),
  scheduler: createQueueAccountScheduler(queues),
});

const demoAccountOf = async (org: string) =>
  database.db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.orgId, org), eq(connectedAccounts.id, 'demo')));

beforeAll(async () => {
  database = await createTestDatabase();
  queues = openQueues({ redis: redisAt(redisUrl), prefix: testRedisPrefix() });
});

afterAll(async () => {
  for (const queue of Object.values(queues.byName)) await queue.obliterate({ force: true });
  await queues.close();
  await database.drop();
});

describe('prepareDemo', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-demo-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('makes the organisation and its mock account once, with its keys shown only then', async () => {
    const first = await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 30 });
    expect(first.keys?.test_key).toMatch(/^test_/);
    expect(first.keys?.live_key).toMatch(/^live_/);
    expect(JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8'))).toEqual({ org: first.org });
    expect(await demoAccountOf(first.org)).toMatchObject([
      { processor: 'mock', livemode: false, pollIntervalSeconds: 30, status: 'active' },
    ]);

    const again = await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 30 });
    expect(again).toEqual({ org: first.org, name: 'Demo merchant', account: 'demo' });
    expect(await database.db.select().from(organisations)).toHaveLength(1);
  });

  it('applies a changed MOCK_DISPUTE_SECONDS, 0 as a quiet minute', async () => {
    const { org } = await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 10 });
    expect((await demoAccountOf(org))[0]?.pollIntervalSeconds).toBe(10);
    await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 0 });
    expect((await demoAccountOf(org))[0]?.pollIntervalSeconds).toBe(60);
  });

  it('connects the account again when a start was cut short before it (or it was disconnected)', async () => {
    const { org } = await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 30 });
    await disconnectAccount(deps(), { org, mode: 'test', id: 'demo' });
    expect(await demoAccountOf(org)).toEqual([]);
    const mended = await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 30 });
    expect(mended.org).toBe(org);
    expect(await demoAccountOf(org)).toHaveLength(1);
  });

  it('takes a damaged demo.json (a crash while it was written) for none, and makes a new demo', async () => {
    const before = (await database.db.select().from(organisations)).length;
    await writeFile(join(dataDir, 'demo.json'), '{"or');
    const made = await prepareDemo(deps(), { DATA_DIR: dataDir, MOCK_DISPUTE_SECONDS: 30 });
    expect(made.keys?.test_key).toMatch(/^test_/);
    expect(await database.db.select().from(organisations)).toHaveLength(before + 1);
    expect(JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8'))).toEqual({ org: made.org });
  });

  it('makes DATA_DIR when it does not exist yet', async () => {
    const fresh = join(dataDir, 'not', 'yet');
    const made = await prepareDemo(deps(), { DATA_DIR: fresh, MOCK_DISPUTE_SECONDS: 30 });
    expect(JSON.parse(await readFile(join(fresh, 'demo.json'), 'utf8'))).toEqual({ org: made.org });
  });
});
