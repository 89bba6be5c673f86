import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import {
  openRedis,
  type RedisTarget,
  type RedisTargetSettings,
  redisAt,
  redisTargetOf,
} from './redis-connection.js';
import { generatedSecret } from './secrets.js';
import { within } from './time-limit.js';

export interface ProvidedRedis {
  /** REDIS_URL as this process must use it: with the managed redis-server's password, when it made one. */
  url: string;
  /** The managed redis-server's pid, when this process started one. */
  managedPid: number | undefined;
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Makes sure Redis answers at REDIS_URL (default 127.0.0.1:6379) for `npm start`. When nothing listens
 * there, the address is on this machine and a `redis-server` binary is installed, a Redis is started on
 * that address (loopback only, data under DATA_DIR/redis, `noeviction` as BullMQ needs, an append-only
 * file so queued jobs survive a restart) and stopped with this process, however it ends. It takes the
 * password REDIS_URL gives or else one generated once in DATA_DIR/redis-password (0600): loopback is
 * shared by every user and program of the machine, and whoever writes to the queues runs jobs as the
 * service. Otherwise start fails with what to do. Only the zero-configuration start (no DATABASE_URL) calls this: in a deployment
 * Redis is a service of its own (docs/operations.md, "Faults"), and so is a cluster or a Sentinel group
 * (REDIS_CLUSTER_NODES, REDIS_SENTINELS), which is never started here.
 */
export async function provideRedis(
  config: RedisTargetSettings & Pick<Config, 'DATA_DIR'>,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProvidedRedis> {
  const target = redisTargetOf(config);
  if (target.kind !== 'url') return { url: config.REDIS_URL, managedPid: undefined, close: async () => {} };
  const url = new URL(config.REDIS_URL);
  const where = `${url.hostname}:${url.port || 6379}`;
  const found = await probe(target);
  if (found === 'redis') return { url: config.REDIS_URL, managedPid: undefined, close: async () => {} };
  if (found !== 'nothing') {
    throw new Error(
      `something at ${where} (REDIS_URL) is not a Redis this service can use (${found}): check REDIS_URL`,
    );
  }
  if (!loopbackHosts.has(url.hostname)) {
    throw new Error(`Redis at ${where} (REDIS_URL) does not answer: check that it runs and is reachable`);
  }
  if (url.protocol !== 'redis:' || url.username) {
    throw new Error(
      `no Redis answers at ${where}, and one started here would speak plain redis:// with at most a ` +
        'password: start the Redis REDIS_URL describes, or leave REDIS_URL unset',
    );
  }
  const binary = findOnPath('redis-server', env);
  if (!binary) {
    throw new Error(
      `Redis is needed and none answers at ${where}, and no redis-server is installed to start one. ` +
        'Install Redis (Debian/Ubuntu: sudo apt install redis-server; macOS: brew install redis) and run ' +
        'npm start again, or set REDIS_URL to a Redis you have (REDIS_URL=redis://host:6379).',
    );
  }
  const password = url.password
    ? decodeURIComponent(url.password)
    : (await generatedSecret(config.DATA_DIR, passwordFile)).value;
  const managed = withPassword(url, password);
  const dir = join(config.DATA_DIR, 'redis');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A file, not arguments: a password in arguments is on show to every user of the machine (ps).
  const settings = join(dir, 'redis.conf');
  await writeFile(
    settings,
    [
      `bind ${url.hostname === 'localhost' ? '127.0.0.1' : url.hostname.replace(/^\[|\]$/g, '')}`,
      `port ${url.port || 6379}`,
      `dir ${JSON.stringify(dir)}`,
      'maxmemory-policy noeviction',
      'appendonly yes',
      'save ""',
      'protected-mode yes',
      'logfile redis.log',
      `requirepass ${JSON.stringify(password)}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  // Under a guard: a shell that stops the server once this process's end of its stdin closes, which
  // happens however this process ends (a crash, SIGKILL), so the server never outlives it. Detached, so a
  // Ctrl-C in the terminal reaches this process only, which stops the server after its workers finish.
  const guard = spawn(
    '/bin/sh',
    ['-c', '"$0" "$1" & server=$!; read -r _; kill "$server"; wait "$server"', binary, settings],
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
  );
  const exited = once(guard, 'exit');
  if (!(await startedAnswering(redisAt(managed.href), guard))) {
    guard.stdin?.end();
    await within(exited, 5000, 'the redis-server').catch(() => guard.kill('SIGKILL'));
    throw new Error(
      `a redis-server was started on ${where} but did not answer; see ${join(dir, 'redis.log')}`,
    );
  }
  const serverPid = await serverPidOf(redisAt(managed.href));
  logger.info({ address: where, dir, pid: serverPid }, 'started a managed redis-server');
  return {
    url: managed.href,
    managedPid: serverPid,
    async close() {
      if (guard.exitCode === null && guard.signalCode === null) {
        guard.stdin?.end();
        await exited;
      }
      logger.info({ address: where }, 'stopped the managed redis-server');
    },
  };
}

/**
 * Redis as a command of the CLI reaches it beside `npm start`: REDIS_URL with the managed redis-server's
 * generated password when REDIS_URL names none, one was generated, and no Redis without a password
 * answers there (one of the operator's own); otherwise the target the settings describe.
 */
export async function redisTargetFor(
  config: RedisTargetSettings & Pick<Config, 'DATA_DIR' | 'DATABASE_URL'>,
): Promise<RedisTarget> {
  const target = redisTargetOf(config);
  if (target.kind !== 'url') return target;
  const url = new URL(config.REDIS_URL);
  if (config.DATABASE_URL || url.password || !loopbackHosts.has(url.hostname)) return target;
  const password = await readFile(join(config.DATA_DIR, passwordFile), 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
  if (!password || (await probe(target)) === 'redis') return target;
  return { ...target, url: withPassword(url, password).href };
}

/** Where the zero-configuration start keeps the managed redis-server's password, in DATA_DIR. */
const passwordFile = 'redis-password';

function withPassword(url: URL, password: string): URL {
  const copy = new URL(url);
  copy.password = encodeURIComponent(password);
  return copy;
}

/**
 * What answers at the URL: a usable Redis; nothing (no connection could be made); or something that took
 * the connection but is no Redis this service can use (said how: no answer, a refusal of the password).
 */
async function probe(target: RedisTarget): Promise<'redis' | 'nothing' | string> {
  const redis = openRedis(target, 'probe');
  let connected = false;
  redis.on('connect', () => {
    connected = true;
  });
  redis.on('error', () => {});
  try {
    await within(
      redis.connect().then(() => redis.ping()),
      2000,
      'Redis',
    );
    return 'redis';
  } catch (error) {
    if (!connected) return 'nothing';
    return error instanceof Error ? error.message : String(error);
  } finally {
    redis.disconnect();
  }
}

async function startedAnswering(target: RedisTarget, guard: ChildProcess): Promise<boolean> {
  for (let tries = 0; tries < 100; tries++) {
    if (guard.exitCode !== null) return false;
    if ((await probe(target)) === 'redis') return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** The pid the answering server reports, for the log (the guard's own pid is the shell's). */
async function serverPidOf(target: RedisTarget): Promise<number | undefined> {
  const redis = openRedis(target, 'probe');
  redis.on('error', () => {});
  try {
    await redis.connect();
    const info = await redis.info('server');
    return Number(/process_id:(\d+)/.exec(info)?.[1]) || undefined;
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find((file) => existsSync(file));
}
