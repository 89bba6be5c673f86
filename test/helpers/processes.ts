import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Config } from '../../src/config.js';
import type { RedisNode } from '../../src/redis-connection.js';
import type { TestApi } from './api.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote, stdout and stderr together, for assertions and failure messages. */
  output(): string;
  /** What it wrote to stderr alone. */
  errors(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** A worker process (`workers/main.ts`). */
export type WorkerProcess = ServiceProcess;

/**
 * Runs one of the service's entry points (`src/server.ts`, `workers/main.ts`) as its own process, the way
 * the Procfile does, through tsx so no build is needed.
 */
export function startProcess(entry: string, env: Record<string, string | undefined>): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    errors += chunk.toString('utf8');
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output: () => output, errors: () => errors, exited };
}

/** Waits until the process has written `text` (within `seconds`), or fails showing what it wrote. */
export async function waitForOutput(running: ServiceProcess, text: string, seconds = 60): Promise<void> {
  for (let tries = 0; tries < seconds * 10 && !running.output().includes(text); tries++) {
    if (running.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!running.output().includes(text)) throw new Error(`expected '${text}' in:\n${running.output()}`);
}

/** The JSON log lines of a process whose `msg` matches. */
export function logLines(running: ServiceProcess, msg: RegExp): Record<string, unknown>[] {
  return running
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line.msg === 'string' && msg.test(line.msg));
}

/**
 * Starts `workers/main.ts` as its own process, the way the Procfile's `worker` runs, and resolves once
 * it says its workers are running.
 */
export async function startWorkerProcess(env: Record<string, string | undefined>): Promise<ServiceProcess> {
  const started = startProcess('workers/main.ts', { ...process.env, LOG_LEVEL: 'info', ...env });
  await waitForOutput(started, 'workers running', 30);
  return started;
}

/** The settings a process needs to share a test service's stores: its database, Redis, queues and secret. */
export function storesOf(api: Pick<TestApi, 'db' | 'config'>): Record<string, string> {
  return {
    DATABASE_URL: api.db.url,
    ...redisSettingsOf(api.config),
    APP_SECRET: api.config.APP_SECRET ?? '',
  };
}

/** A test service's Redis settings (one server, a cluster or sentinels) and queue prefix, as environment variables. */
export function redisSettingsOf(config: Config): Record<string, string> {
  const list = (nodes: RedisNode[] | undefined) =>
    (nodes ?? []).map(({ host, port }) => `${host}:${port}`).join(',');
  return {
    REDIS_URL: config.REDIS_URL,
    REDIS_CLUSTER_NODES: list(config.REDIS_CLUSTER_NODES),
    REDIS_SENTINELS: list(config.REDIS_SENTINELS),
    REDIS_SENTINEL_NAME: config.REDIS_SENTINEL_NAME ?? '',
    REDIS_SENTINEL_PASSWORD: config.REDIS_SENTINEL_PASSWORD ?? '',
    REDIS_USERNAME: config.REDIS_USERNAME ?? '',
    REDIS_PASSWORD: config.REDIS_PASSWORD ?? '',
    REDIS_TLS: String(config.REDIS_TLS),
    REDIS_CA_FILE: config.REDIS_CA_FILE ?? '',
    QUEUE_PREFIX: config.QUEUE_PREFIX,
  };
}
