import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

export interface ProvidedRedis {
  /** The managed child's pid, when this process started one. */
  managedPid: number | undefined;
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Makes sure Redis answers at REDIS_URL (default 127.0.0.1:6379) for `npm start`: when nothing answers
 * there, the address is on this machine and a `redis-server` binary is installed, a child Redis is started
 * on that port (loopback only, data under DATA_DIR/redis, `noeviction` as BullMQ needs, an append-only
 * file so queued jobs survive a restart) and stopped with this process. Otherwise start fails with what
 * to do. Worker processes never start one: in a deployment Redis is a service of its own.
 */
export async function provideRedis(
  config: Pick<Config, 'REDIS_URL' | 'DATA_DIR'>,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProvidedRedis> {
  const url = new URL(config.REDIS_URL);
  const where = `${url.hostname}:${url.port || 6379}`;
  if (await answers(config.REDIS_URL)) return { managedPid: undefined, close: async () => {} };
  if (!loopbackHosts.has(url.hostname)) {
    throw new Error(`Redis at ${where} (REDIS_URL) does not answer: check that it runs and is reachable`);
  }
  const binary = findOnPath('redis-server', env);
  if (!binary) {
    throw new Error(
      `Redis is needed and none answers at ${where}, and no redis-server is installed to start one. ` +
        'Install Redis (Debian/Ubuntu: sudo apt install redis-server; macOS: brew install redis) and run ' +
        'npm start again, or set REDIS_URL to a Redis you have (REDIS_URL=redis://host:6379).',
    );
  }
  const dir = join(config.DATA_DIR, 'redis');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const child = spawn(
    binary,
    [
      '--bind',
      url.hostname === 'localhost' ? '127.0.0.1' : url.hostname.replace(/^\[|\]$/g, ''),
      '--port',
      url.port || '6379',
      '--dir',
      dir,
      '--maxmemory-policy',
      'noeviction',
      '--appendonly',
      'yes',
      '--save',
      '',
      '--protected-mode',
      'yes',
      '--logfile',
      'redis.log',
      ...(url.password ? ['--requirepass', decodeURIComponent(url.password)] : []),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Stop it with this process however it ends (a crash, process.exit), not only through close().
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  if (!(await startedAnswering(config.REDIS_URL, child))) {
    child.kill('SIGKILL');
    process.off('exit', stopOnExit);
    throw new Error(
      `a redis-server was started on ${where} but did not answer; see ${join(dir, 'redis.log')}`,
    );
  }
  logger.info({ address: where, dir, pid: child.pid }, 'started a managed redis-server');
  return {
    managedPid: child.pid,
    async close() {
      process.off('exit', stopOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      logger.info({ address: where }, 'stopped the managed redis-server');
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function startedAnswering(url: string, child: ChildProcess): Promise<boolean> {
  for (let tries = 0; tries < 100; tries++) {
    if (child.exitCode !== null) return false;
    if (await answers(url)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find((file) => existsSync(file));
}
