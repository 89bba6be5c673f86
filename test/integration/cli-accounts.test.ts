import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { openQueues, type Queues } from '../../src/jobs/catalog.js';
import { redisAt } from '../../src/redis-connection.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { redisUrl, testRedisPrefix } from '../helpers/services.js';

let database: TestDatabase;
let queues: Queues;
let org: string;
let scratch: string;
beforeAll(async () => {
  database = await createTestDatabase();
  queues = openQueues({ redis: redisAt(redisUrl), prefix: testRedisPrefix() });
  org = (await createOrganisation(database.db, { name: 'CLI Accounts' })).org;
  scratch = await mkdtemp(join(tmpdir(), 'rebuttal-cli-'));
});
afterAll(async () => {
  await queues.byName.mirror.obliterate({ force: true });
  await queues.close();
  await database.drop();
  await rm(scratch, { recursive: true, force: true });
});

/** Runs `npm run cli -- account ...` as an operator would: a separate process on the same database and Redis. */
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, {
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: queues.settings.prefix,
    APP_SECRET: 'cli-accounts-test-secret-of-32-characters',
    ...env,
  });

/** `account connect` of a test-mode mock account of this file's organisation. */
const connectMock = (id = 'default') => [
  'account',
  'connect',
  '--org',
  org,
  '--mode',
  'test',
  '--processor',
  'mock',
  '--id',
  id,
];
const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
const schedulers = async () =>
  Object.fromEntries((await queues.byName.mirror.getJobSchedulers()).map((s) => [s.key, s.every]));

describe('npm run cli -- account', () => {
  it('connect, list, update and disconnect, with the scheduler following in Redis', async () => {
    const connected = await cli([...connectMock(), '--json']);
    expect(connected).toMatchObject({ code: 0, stderr: '' });
    const account = json(connected.stdout);
    expect(account).toMatchObject({
      org,
      mode: 'test',
      account: 'default',
      processor: 'mock',
      access: 'full',
      poll_interval_seconds: 60,
      status: 'active',
      schedule: { state: 'scheduled', everySeconds: 60 },
    });
    expect(Object.values(await schedulers())).toEqual([60_000]);

    const listed = await cli(['account', 'list', '--org', org]);
    expect(listed.stdout).toMatch(
      /^default {2}test {2}mock {2}full {2}every 60 s {2}active {2}never polled\n$/,
    );

    const slower = await cli(['account', 'update', '--org', org, '--mode', 'test', '--poll-seconds', '120']);
    expect(slower.stdout).toBe(
      `account default (test) of ${org} updated\nmirror scheduler: polls every 120 s\n`,
    );
    expect(Object.values(await schedulers())).toEqual([120_000]);

    const disabled = await cli([
      'account',
      'update',
      '--org',
      org,
      '--mode',
      'test',
      '--status',
      'disabled',
      '--json',
    ]);
    expect(json(disabled.stdout)).toMatchObject({ status: 'disabled', schedule: { state: 'removed' } });
    expect(await schedulers()).toEqual({});

    const gone = await cli(['account', 'disconnect', '--org', org, '--mode', 'test']);
    expect(gone.stdout).toBe(`account default (test) of ${org} disconnected\nmirror scheduler: removed\n`);
    expect((await cli(['account', 'list', '--org', org, '--json'])).stdout.trim()).toBe('[]');
  });

  it('stores credentials from a file, sealed', async () => {
    const file = join(scratch, 'credentials.json');
    await writeFile(file, '{"secret_key":"sk_test_cli"}\n');
    const connected = await cli([...connectMock('with-credentials'), '--credentials-file', file, '--json']);
    expect(json(connected.stdout)).toMatchObject({ account: 'with-credentials', has_credentials: true });
    expect(connected.stdout).not.toContain('sk_test_cli');
  });

  it('with Redis unreachable saves the change and says the schedule sync will catch up', async () => {
    const connected = await cli(connectMock('offline'), { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(connected.code).toBe(0);
    expect(connected.stdout).toContain(`account offline (test) of ${org} connected`);
    expect(connected.stdout).toContain('mirror scheduler: not updated, Redis unreachable');
    expect(connected.stdout).toContain(
      "The change is saved; the workers' schedule sync brings Redis in line",
    );
    expect((await cli(['account', 'list', '--org', org])).stdout).toContain('offline  test  mock');
  });

  it.each([
    [['--org', 'org_nope', '--mode', 'test', '--processor', 'mock'], 'error: no organisation org_nope'],
    [
      ['--org', 'ORG', '--mode', 'test', '--processor', 'visa'],
      "error: processor 'visa' cannot be connected: no adapter for it",
    ],
    [
      ['--org', 'ORG', '--mode', 'test', '--processor', 'mock', '--poll-seconds', 'often'],
      'error: invalid interval: must be a whole number of seconds',
    ],
  ])('connect %j fails with one line: %s', async (args, message) => {
    const { code, stderr } = await cli([
      'account',
      'connect',
      ...args.map((arg) => (arg === 'ORG' ? org : arg)),
    ]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(message);
  });
});
