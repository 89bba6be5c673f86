import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiKeys } from '../../src/db/schema/index.js';
import { hashApiKey } from '../../src/features/organisations/api-keys.js';
import { KeyResolver } from '../../src/features/organisations/authenticate.js';
import { rotateApiKey } from '../../src/features/organisations/organisations.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { expectApiError } from '../helpers/security.js';
import { postgresAdminUrl } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Key rotation with a grace period (`key rotate --grace-hours`), and the key cache across a lost
 * notification connection (docs/operations.md "Commands"). The service reaches Postgres through a
 * proxy this file controls; the test's own helpers and the CLI use the direct connection. Keys are cached
 * for an hour, so a key refused here was refused by the service's own checks, not by a cache running out.
 */
let proxy: TcpProxy;
let api: TestApi;
beforeAll(async () => {
  const direct = new URL(postgresAdminUrl);
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  api = await startTestApi({
    workers: [],
    env: { KEY_CACHE_SECONDS: '3600' },
    databaseUrl: (url) => {
      const viaProxy = new URL(url);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      return viaProxy.toString();
    },
  });
});
afterAll(async () => {
  await proxy?.resume();
  await api?.close();
  await proxy?.close();
});

const cli = (...args: string[]) => runCli(args, { DATABASE_URL: api.db.url });
const disputes = (key: string) => api.call('GET', '/v1/disputes', { key });

/** The moment a key stops working, as stored; null while it has no end. */
async function endOf(key: string): Promise<Date | null> {
  const [row] = await api.db.db
    .select({ revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.hash, hashApiKey(key)));
  return row?.revokedAt ?? null;
}

/** Time passing, as the database sees it: the key's end moved to a second ago. */
async function endNow(key: string): Promise<void> {
  await api.db
    .sql`update api_keys set revoked_at = now() - interval '1 second' where hash = ${hashApiKey(key)}`;
}

describe('key rotate --grace-hours', () => {
  it('keeps the old key working until the stored end beside the new one, although it was cached', async () => {
    const org = await api.createOrg();
    expect((await disputes(org.live_key)).status).toBe(200);
    const { stdout, code } = await cli(
      'key',
      'rotate',
      '--org',
      org.org,
      '--mode',
      'live',
      '--grace-hours',
      '24',
      '--json',
    );
    expect(code).toBe(0);
    const rotated = JSON.parse(stdout) as Record<string, string>;
    const end = await endOf(org.live_key);
    expect(rotated).toEqual({
      org: org.org,
      mode: 'live',
      live_key: expect.stringMatching(/^live_[A-Za-z0-9_-]{43}$/),
      previous_key_expires: end?.toISOString(),
    });
    expect((await disputes(org.live_key)).status).toBe(200);
    expect((await disputes(rotated.live_key ?? '')).status).toBe(200);
  });

  it('refuses the old key with 401 authentication once its end has passed; the new key works', async () => {
    const org = await api.createOrg();
    const rotated = await rotateApiKey(api.db.db, { org: org.org, mode: 'test', graceHours: 2 });
    expect(rotated?.previousUntil).toEqual(await endOf(org.test_key));
    await endNow(org.test_key);
    expectApiError(await disputes(org.test_key), {
      status: 401,
      type: 'authentication',
      url: '/v1/disputes',
    });
    expect((await disputes(rotated?.key ?? '')).status).toBe(200);
    expect((await disputes(org.live_key)).status).toBe(200);
  });

  it('keeps a key in its grace cached no longer than its end, however long the cache keeps keys', async () => {
    const org = await api.createOrg();
    await rotateApiKey(api.db.db, { org: org.org, mode: 'test', graceHours: 1 });
    // Late in the grace: one minute left.
    await api.db
      .sql`update api_keys set revoked_at = now() + interval '1 minute' where hash = ${hashApiKey(org.test_key)}`;
    const keys = new KeyResolver(api.db, 3_600_000);
    expect(await keys.resolve(org.test_key)).toMatchObject({ orgId: org.org, livemode: false });
    await endNow(org.test_key);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2 * 60_000);
      expect(await keys.resolve(org.test_key)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a rotation without grace stops at once every old key, those still in their grace included', async () => {
    const org = await api.createOrg();
    const second = await rotateApiKey(api.db.db, { org: org.org, mode: 'live', graceHours: 24 });
    const third = await rotateApiKey(api.db.db, { org: org.org, mode: 'live' });
    expect(third?.previousUntil).toBeNull();
    for (const key of [org.live_key, second?.key ?? '']) {
      expectApiError(await disputes(key), { status: 401, type: 'authentication', url: '/v1/disputes' });
    }
    expect((await disputes(third?.key ?? '')).status).toBe(200);
  });

  it('refuses --grace-hours out of 0 to 720 with a one-line reason, changing nothing', async () => {
    const org = await api.createOrg();
    const keys = () => api.db.sql`select * from api_keys where org_id = ${org.org} order by id`;
    const before = await keys();
    const { code, stderr } = await cli(
      'key',
      'rotate',
      '--org',
      org.org,
      '--mode',
      'test',
      '--grace-hours',
      '721',
    );
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('error: grace must be a whole number of hours from 0 to 720, not 721');
    for (const [hours, shown] of [
      ['-1', '"-1"'],
      ['1.5', '"1.5"'],
      ['soon', '"soon"'],
    ] as const) {
      await expect(
        rotateApiKey(api.db.db, { org: org.org, mode: 'test', graceHours: hours }),
      ).rejects.toThrow(`grace must be a whole number of hours from 0 to 720, not ${shown}`);
    }
    expect(await keys()).toEqual(before);
    expect((await disputes(org.test_key)).status).toBe(200);
  });
});

describe('the key cache across a lost notification connection', () => {
  const listenerPids = async () =>
    (
      await api.db.sql<{ pid: number }[]>`
        select pid from pg_stat_activity
        where datname = current_database() and query = 'listen "rebuttal_auth_invalidate"'`
    ).map(({ pid }) => pid);

  it('refuses a key revoked while the listener was disconnected as soon as it listens again', async () => {
    const org = await api.createOrg();
    expect((await disputes(org.test_key)).status).toBe(200);
    const [listener, ...others] = await listenerPids();
    expect(listener).toBeDefined();
    expect(others).toEqual([]);

    // The service sees nothing until resume(): not the end of its listener's connection, nor the rotation.
    await proxy.blackhole();
    try {
      await api.db.sql`select pg_terminate_backend(${listener ?? 0}::int, 5000)`;
      const { code } = await cli('key', 'rotate', '--org', org.org, '--mode', 'test', '--json');
      expect(code).toBe(0);
    } finally {
      await proxy.resume();
    }

    await vi.waitFor(
      async () => {
        const [again] = await listenerPids();
        expect(again).toBeDefined();
        expect(again).not.toBe(listener);
      },
      { timeout: 5000, interval: 20 },
    );
    await expect
      .poll(async () => (await disputes(org.test_key)).status, { timeout: 5000, interval: 20 })
      .toBe(401);
    expect((await disputes(org.live_key)).status).toBe(200);
  });
});
