import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { Socket } from 'node:net';
import { Cluster, type Redis } from 'ioredis';
import { openRedis, type RedisTarget, redisAt } from '../../src/redis-connection.js';

/**
 * The tests run against this machine's real PostgreSQL and Redis. When one is down, start it the way the
 * machine's own boot does; when that is impossible, fail with a message that says what is missing.
 */
export const postgresAdminUrl =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, host);
  });
}

async function waitFor(host: string, port: number, seconds: number): Promise<boolean> {
  for (let tries = 0; tries < seconds * 4; tries++) {
    if (await answers(host, port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

function tryRun(command: string, timeoutMs = 60_000): string | null {
  try {
    execSync(command, { stdio: 'pipe', timeout: timeoutMs });
    return null;
  } catch (error) {
    return error instanceof Error ? (error.message.split('\n')[0] ?? 'failed') : String(error);
  }
}

export async function ensurePostgres(): Promise<void> {
  const url = new URL(postgresAdminUrl);
  const port = Number(url.port || 5432);
  if (await answers(url.hostname, port)) return;
  let problem = 'no PostgreSQL cluster is installed under /etc/postgresql';
  if (existsSync('/etc/postgresql')) {
    const version = readdirSync('/etc/postgresql')[0];
    problem =
      tryRun(`pg_ctlcluster --skip-systemctl-redirect ${version} main start`) ?? 'it did not start listening';
  }
  if (!(await waitFor(url.hostname, port, 20))) {
    throw new Error(
      `PostgreSQL is not answering on ${url.hostname}:${port} and could not be started (${problem}). ` +
        'Start it (pg_ctlcluster --skip-systemctl-redirect <version> main start) or set TEST_DATABASE_URL.',
    );
  }
}

export async function ensureRedis(): Promise<void> {
  const url = new URL(redisUrl);
  const port = Number(url.port || 6379);
  if (await answers(url.hostname, port)) return;
  const problem =
    tryRun(`redis-server --daemonize yes --bind 127.0.0.1 --port ${port} --save "" --appendonly no`) ??
    'it did not start listening';
  if (!(await waitFor(url.hostname, port, 10))) {
    throw new Error(
      `Redis is not answering on ${url.hostname}:${port} and could not be started (${problem}). ` +
        'Install redis-server (apt-get install redis-server) or set TEST_REDIS_URL.',
    );
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A Redis key prefix of one test file's own, so files running in parallel never share a key. */
export function testRedisPrefix(): string {
  return `rebuttal_test_${randomBytes(6).toString('hex')}`;
}

/** Leaves Redis as the file found it: every key under its prefix goes, on every master of a cluster. */
export async function dropKeys(where: string | RedisTarget, prefix: string): Promise<void> {
  const redis = openRedis(typeof where === 'string' ? redisAt(where) : where, 'producer');
  try {
    // A cluster knows its masters once it has read the slots.
    if (redis.status !== 'ready') await once(redis, 'ready');
    const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
    for (const node of nodes) await dropKeysOf(node, prefix);
  } finally {
    redis.disconnect();
  }
}

async function dropKeysOf(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export const chromiumPath = '/usr/bin/chromium';

/** The browser tests drive Debian's chromium. */
export const ensureChromium = () => ensureDebianPackage('chromium', chromiumPath);

/**
 * Some tests use a program from Debian's packages (chromium for the browser test, poppler-utils' pdftotext
 * to read PDFs back). When `program` is missing and this run may install packages (root, with apt-get),
 * install its package, as the services above are started; otherwise the test fails saying what to install.
 */
export function ensureDebianPackage(name: string, program: string): void {
  if (existsSync(program) || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return;
  const install = `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${name}`;
  if (tryRun(install) !== null) tryRun(`apt-get update -qq && ${install}`, 600_000);
}
