import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig, withHashTag } from '../../src/config.js';
import { provideRedis } from '../../src/local-redis.js';
import { createLogger } from '../../src/logger.js';
import { describeRedis, openRedis, type RedisClient, redisTargetOf } from '../../src/redis-connection.js';

const base = { DATABASE_URL: 'postgres://localhost/x' };
const refusal = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

/** The options a client was made with, without letting it connect. */
function optionsOf<T extends RedisClient>(client: T): T['options'] {
  client.on('error', () => {});
  client.disconnect();
  return client.options;
}

describe('the Redis settings', () => {
  it('read cluster nodes and sentinels as host:port lists, IPv6 in brackets', () => {
    const config = loadConfig({ ...base, REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002' });
    expect(config.REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-a', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(refusal({ REDIS_SENTINELS: 'a:26379,b' })).toBe(
      "invalid configuration: REDIS_SENTINELS: expected host:port,host:port,…; got 'a:26379,b'",
    );
  });

  it('refuse what cannot all hold, in one line', () => {
    expect(
      refusal({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_SENTINELS: 'b:26379', REDIS_SENTINEL_NAME: 'm' }),
    ).toBe('invalid configuration: set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both');
    expect(refusal({ REDIS_SENTINELS: 'b:26379' })).toBe(
      'invalid configuration: REDIS_SENTINELS needs REDIS_SENTINEL_NAME, the name the sentinels monitor the master under',
    );
    expect(refusal({ REDIS_SENTINEL_NAME: 'm' })).toBe(
      'invalid configuration: REDIS_SENTINEL_NAME and REDIS_SENTINEL_PASSWORD need REDIS_SENTINELS',
    );
    expect(refusal({ REDIS_PASSWORD: 'secret' })).toBe(
      'invalid configuration: REDIS_USERNAME and REDIS_PASSWORD are for REDIS_CLUSTER_NODES and REDIS_SENTINELS; put them in REDIS_URL (redis://user:password@host:port)',
    );
    expect(refusal({ REDIS_TLS: 'true' })).toBe(
      'invalid configuration: REDIS_TLS is for REDIS_CLUSTER_NODES and REDIS_SENTINELS; for REDIS_URL write rediss://',
    );
    expect(refusal({ REDIS_CA_FILE: '/ca.pem' })).toBe(
      'invalid configuration: REDIS_CA_FILE needs TLS: a rediss:// REDIS_URL, or REDIS_TLS=true with cluster nodes or sentinels',
    );
    expect(refusal({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_CA_FILE: '/ca.pem' })).toBe(
      'invalid configuration: REDIS_CA_FILE needs REDIS_TLS=true',
    );
    expect(refusal({ REDIS_URL: 'rediss://a:6380', REDIS_CA_FILE: '/ca.pem' })).toBeUndefined();
  });

  it('give QUEUE_PREFIX a hash tag on a cluster only, keeping one it has', () => {
    expect(withHashTag('rebuttal')).toBe('{rebuttal}');
    expect(withHashTag('{rebuttal}')).toBe('{rebuttal}');
    expect(withHashTag('app:{q}:x')).toBe('app:{q}:x');
    // An empty tag is no tag: Redis hashes the whole key.
    expect(withHashTag('a{}b')).toBe('{a{}b}');
    const cluster = loadConfig({ ...base, REDIS_CLUSTER_NODES: 'a:7000' });
    expect([cluster.QUEUE_PREFIX, cluster.queuePrefixTagged]).toEqual(['{rebuttal}', true]);
    const sentinel = loadConfig({ ...base, REDIS_SENTINELS: 'a:26379', REDIS_SENTINEL_NAME: 'm' });
    expect([sentinel.QUEUE_PREFIX, sentinel.queuePrefixTagged]).toEqual(['rebuttal', false]);
  });
});

describe('openRedis', () => {
  it('makes a cluster client with the credentials and bounds per node', () => {
    const target = redisTargetOf(
      loadConfig({
        ...base,
        REDIS_CLUSTER_NODES: 'a:7000,b:7001',
        REDIS_USERNAME: 'svc',
        REDIS_PASSWORD: 'pw',
      }),
    );
    expect(describeRedis(target)).toBe('cluster a:7000,b:7001');
    const request = openRedis(target, 'request');
    expect(request).toBeInstanceOf(Cluster);
    const options = optionsOf(request as Cluster);
    expect(options.enableOfflineQueue).toBe(false);
    expect(options.redisOptions).toMatchObject({
      username: 'svc',
      password: 'pw',
      maxRetriesPerRequest: 0,
      commandTimeout: 100,
    });
    // BullMQ reads a cluster's per-node options: its blocking connections must retry without limit.
    const blocking = optionsOf(openRedis(target, 'blocking') as Cluster);
    expect(blocking.redisOptions?.maxRetriesPerRequest).toBeNull();
  });

  it('makes a sentinel client: sentinels, master name, passwords, and TLS to both with the CA', async () => {
    const ca = join(tmpdir(), `rebuttal-ca-${process.pid}.pem`);
    await writeFile(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
    const target = redisTargetOf(
      loadConfig({
        ...base,
        REDIS_SENTINELS: 's1:26379,s2:26380',
        REDIS_SENTINEL_NAME: 'primary',
        REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
        REDIS_PASSWORD: 'master-pw',
        REDIS_TLS: 'true',
        REDIS_CA_FILE: ca,
      }),
    );
    expect(describeRedis(target)).toBe('sentinels s1:26379,s2:26380 master primary');
    const client = openRedis(target, 'producer');
    expect(client).toBeInstanceOf(Redis);
    const options = optionsOf(client as Redis);
    const tls = { ca: expect.any(Buffer) };
    expect(options).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      name: 'primary',
      sentinelPassword: 'sentinel-pw',
      password: 'master-pw',
      tls,
      enableTLSForSentinelMode: true,
      sentinelTLS: tls,
      failoverDetector: true,
      maxRetriesPerRequest: 1,
    });
    expect(String(options.tls?.ca)).toContain('not checked here');
  });

  it('keeps a URL as it is, adding the CA to rediss://', () => {
    const plain = optionsOf(openRedis(redisTargetOf(loadConfig(base)), 'request') as Redis);
    expect([plain.host, plain.port, plain.tls, plain.commandTimeout]).toEqual([
      '127.0.0.1',
      6379,
      undefined,
      100,
    ]);
    expect(describeRedis(redisTargetOf(loadConfig({ ...base, REDIS_URL: 'redis://:pw@cache:6380' })))).toBe(
      'cache:6380',
    );
  });
});

describe('the managed redis-server of npm start', () => {
  it.each([
    { REDIS_CLUSTER_NODES: '127.0.0.1:1' },
    { REDIS_SENTINELS: '127.0.0.1:1', REDIS_SENTINEL_NAME: 'primary' },
  ])('is never started with %o: the cluster or sentinels are the operator’s', async (env) => {
    // Nothing answers at this REDIS_URL: with a plain URL, a redis-server would be started there.
    const dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-no-managed-'));
    try {
      const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', DATA_DIR: dataDir, ...env });
      const provided = await provideRedis(config, createLogger('silent'));
      expect([provided.url, provided.managedPid]).toEqual(['redis://127.0.0.1:1', undefined]);
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
