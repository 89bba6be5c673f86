import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { certificateFailures } from './certificate-failures.js';
import type { Config } from './config.js';

/** A connection as the service passes it around: one Redis (a URL, or a Sentinel-managed master) or a cluster. */
export type RedisClient = Redis | Cluster;

export interface RedisNode {
  host: string;
  port: number;
}

/** Who the service is to Redis where the settings say (REDIS_USERNAME, REDIS_PASSWORD), and over what. */
interface RedisAccess {
  username: string | undefined;
  password: string | undefined;
  /** TLS options (a private CA) when the connection is encrypted; undefined: plain. */
  tls: ConnectionOptions | undefined;
}

/**
 * Where the service's Redis is, resolved once from the settings (docs/operations.md "Configuration"): one
 * server at a URL (its userinfo and `rediss://` say the rest), a Redis Cluster by its seed nodes, or a
 * master that Sentinels name.
 */
export type RedisTarget =
  | { kind: 'url'; url: string; tls: ConnectionOptions | undefined }
  | ({ kind: 'cluster'; nodes: RedisNode[] } & RedisAccess)
  | ({
      kind: 'sentinel';
      sentinels: RedisNode[];
      name: string;
      sentinelPassword: string | undefined;
    } & RedisAccess);

/** A single Redis at `url`, as the tests and the managed redis-server name it. */
export const redisAt = (url: string): RedisTarget => ({ kind: 'url', url, tls: undefined });

export type RedisTargetSettings = Pick<
  Config,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_NAME'
  | 'REDIS_SENTINEL_PASSWORD'
  | 'REDIS_USERNAME'
  | 'REDIS_PASSWORD'
  | 'REDIS_TLS'
  | 'REDIS_CA_FILE'
>;

/**
 * The target the settings describe (config.ts has rejected contradictions). REDIS_CA_FILE is read here,
 * once per process: a process resolves its target at start and keeps it.
 */
export function redisTargetOf(config: RedisTargetSettings): RedisTarget {
  const ca = config.REDIS_CA_FILE ? readFileSync(config.REDIS_CA_FILE) : undefined;
  const tls = ca ? { ca } : {};
  const access = {
    username: config.REDIS_USERNAME,
    password: config.REDIS_PASSWORD,
    tls: config.REDIS_TLS ? tls : undefined,
  };
  if (config.REDIS_CLUSTER_NODES) return { kind: 'cluster', nodes: config.REDIS_CLUSTER_NODES, ...access };
  if (config.REDIS_SENTINELS) {
    return {
      kind: 'sentinel',
      sentinels: config.REDIS_SENTINELS,
      name: config.REDIS_SENTINEL_NAME ?? '',
      sentinelPassword: config.REDIS_SENTINEL_PASSWORD,
      ...access,
    };
  }
  return { kind: 'url', url: config.REDIS_URL, tls: ca && { ca } };
}

/** Where the target is, for logs and error lines: addresses and names only, never a password. */
export function describeRedis(target: RedisTarget): string {
  const list = (nodes: RedisNode[]) => nodes.map(({ host, port }) => `${host}:${port}`).join(',');
  if (target.kind === 'cluster') return `cluster ${list(target.nodes)}`;
  if (target.kind === 'sentinel') return `sentinels ${list(target.sentinels)} master ${target.name}`;
  const url = new URL(target.url);
  return `${url.hostname}:${url.port || 6379}`;
}

/** The setting that says where the target is, for lines that tell an operator what to check. */
export function redisSetting(target: RedisTarget): string {
  return { url: 'REDIS_URL', cluster: 'REDIS_CLUSTER_NODES', sentinel: 'REDIS_SENTINELS' }[target.kind];
}

/**
 * What a connection is for:
 * - `request`: the request path's (rate limits, readiness, the sign-in guard, breakers): a command fails
 *   within 100 ms when Redis is slow or away, so the caller can go on without it;
 * - `producer`: queues adding jobs, which fail fast when Redis is away (the sweeps catch up later);
 * - `blocking`: workers and queue-event listeners, which block on Redis and retry through an outage
 *   (BullMQ requires `maxRetriesPerRequest: null`);
 * - `probe`: one question at start, not retried.
 */
export type RedisUse = 'request' | 'producer' | 'blocking' | 'probe';

const uses: Record<RedisUse, RedisOptions> = {
  request: { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: 100, connectTimeout: 2000 },
  producer: { maxRetriesPerRequest: 1, connectTimeout: 2000 },
  blocking: { maxRetriesPerRequest: null },
  probe: {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  },
};

/** The one place a Redis connection is made: every use, every topology. */
export function openRedis(target: RedisTarget, use: RedisUse): RedisClient {
  const options = uses[use];
  if (target.kind === 'url')
    return new Redis(target.url, { ...options, ...(target.tls && { tls: target.tls }) });
  const access: RedisOptions = {
    username: target.username,
    password: target.password,
    ...(target.tls && { tls: target.tls }),
  };
  if (target.kind === 'sentinel') {
    return new Redis({
      ...options,
      ...access,
      sentinels: target.sentinels,
      name: target.name,
      sentinelPassword: target.sentinelPassword,
      ...(target.tls && { enableTLSForSentinelMode: true, sentinelTLS: target.tls }),
      // Subscribes to the sentinels' +switch-master: connections move to a new master at once, rather
      // than when the old one refuses a write.
      failoverDetector: true,
    });
  }
  const { enableOfflineQueue, lazyConnect, retryStrategy, ...perNode } = options;
  const cluster: ClusterOptions = {
    // Per node: the command's bounds and the credentials. The cluster client keeps its own offline
    // queue (a node's is always on) and finds the slots again on MOVED.
    redisOptions: { ...perNode, ...access },
    enableOfflineQueue: enableOfflineQueue ?? true,
    lazyConnect: lazyConnect ?? false,
    ...(retryStrategy !== undefined && { clusterRetryStrategy: () => null }),
    slotsRefreshTimeout: 2000,
    retryDelayOnMoved: 0,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    // TLS certificates name hosts: connect to the nodes by the name given, not a resolved address.
    ...(target.tls && { dnsLookup: (address, callback) => callback(null, address) }),
  };
  return new Cluster(target.nodes, cluster);
}

/**
 * Fails with one line when REDIS_URL names a node of a Redis Cluster: a single-node client there gets
 * MOVED for most keys, and the queues would take work that is never done.
 */
export async function refuseClusterNode(redis: RedisClient, target: RedisTarget): Promise<void> {
  if (target.kind === 'cluster') return;
  const info = await redis.info('cluster');
  if (/^cluster_enabled:1/m.test(info)) {
    throw new Error(
      `Redis at ${describeRedis(target)} (${redisSetting(target)}) is a node of a Redis Cluster: set REDIS_CLUSTER_NODES=host:port,… to its nodes instead`,
    );
  }
}

/**
 * Fails with one line when Redis's TLS certificate is refused (not trusted, expired, for another host):
 * no retry mends that, so a process stops at start rather than wait for a Redis it can never use. Waits
 * for the connection's first outcome; any other failure (Redis away) is the watch's to tell.
 */
export async function refuseCertificate(redis: RedisClient, target: RedisTarget): Promise<void> {
  // A cluster whose slots are not all served (cluster_state:fail) only closes and reconnects, silently.
  const events = ['ready', 'error', 'node error', 'end', 'reconnecting'] as const;
  let heard = (_error?: Error) => {};
  const failure = await new Promise<Error | undefined>((resolve) => {
    heard = resolve;
    if (redis.status === 'ready') resolve(undefined);
    for (const event of events) redis.on(event, heard);
  });
  for (const event of events) redis.off(event, heard);
  const refusal = certificateFailures[(failure as NodeJS.ErrnoException | undefined)?.code ?? ''];
  if (!refusal || !failure) return;
  const advice = refusal.endsWith('not trusted')
    ? ': set REDIS_CA_FILE to the certificate (PEM) of the CA that signed it'
    : '';
  throw new Error(
    `Redis at ${describeRedis(target)} (${redisSetting(target)}): ${refusal} (${failure.message})${advice}`,
  );
}
