import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { exerciseEngine, exerciseSettings } from '../helpers/engine-exercise.js';
import { startProcess } from '../helpers/processes.js';
import { sentinelGroup } from '../helpers/redis-sentinel.js';
import { type TlsRedis, tlsRedis } from '../helpers/redis-server.js';
import { testRedisPrefix } from '../helpers/services.js';
import { testAuthority } from '../helpers/tls.js';

/**
 * The service on a Redis that speaks TLS only (`rediss://`), with a certificate from a private CA, as a
 * managed Redis has: trusted through REDIS_CA_FILE, and refused in one line without it; and a Sentinel
 * group speaking TLS only, sentinels included (REDIS_TLS).
 */
let redis: TlsRedis;
let api: TestApi;
let database: TestDatabase;

beforeAll(async () => {
  redis = await tlsRedis(testAuthority());
  database = await createTestDatabase();
  api = await startTestApi({
    env: { ...exerciseSettings, REDIS_URL: redis.url, REDIS_CA_FILE: redis.caFile },
  });
});
afterAll(async () => {
  await api?.close();
  await database?.drop();
  await redis?.close();
});

describe('Redis over TLS with a private CA', () => {
  it('trusted through REDIS_CA_FILE: ready, and the engine round goes through', async () => {
    const ready = await api.call('GET', '/readyz');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
    await exerciseEngine(api);
  });

  it('without REDIS_CA_FILE: the process stops at start saying the certificate is not trusted', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rebuttal-tls-start-'));
    const started = startProcess('src/server.ts', {
      ...process.env,
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: testRedisPrefix(),
      APP_SECRET: 'test-app-secret-of-at-least-32-characters',
      PORT: '0',
      DATA_DIR: dataDir,
    });
    const code = await Promise.race([
      started.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000)),
    ]);
    started.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    expect(code, started.output()).toBe(1);
    const port = new URL(redis.url).port;
    expect(started.errors().trim().split('\n').at(-1)).toBe(
      `rebuttal could not start: Redis at 127.0.0.1:${port} (REDIS_URL): TLS certificate not trusted (self-signed certificate in certificate chain): set REDIS_CA_FILE to the certificate (PEM) of the CA that signed it`,
    );
  }, 30_000);
});

describe('Sentinel over TLS (REDIS_TLS) with passwords', () => {
  it('ready, and the engine round goes through a failover', async () => {
    const group = await sentinelGroup({
      password: 'data-node-password',
      sentinelPassword: 'sentinel-password',
      tls: testAuthority(),
    });
    const onSentinel = await startTestApi({
      env: {
        ...exerciseSettings,
        REDIS_SENTINELS: group.sentinels,
        REDIS_SENTINEL_NAME: group.name,
        REDIS_PASSWORD: 'data-node-password',
        REDIS_SENTINEL_PASSWORD: 'sentinel-password',
        REDIS_TLS: 'true',
        REDIS_CA_FILE: testAuthority().caFile,
      },
    });
    try {
      const ready = await onSentinel.call('GET', '/readyz');
      expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
      // Bull Board and the rate limits are checked after the failover: on the new master.
      await exerciseEngine(onSentinel, { disputes: 5, meanwhile: async () => void (await group.failover()) });
      expect((await onSentinel.call('GET', '/readyz')).body).toMatchObject({ status: 'ready' });
    } finally {
      await onSentinel.close();
      await group.close();
    }
  }, 60_000);
});
