import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
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
export function storesOf(api: TestApi): Record<string, string> {
  return {
    DATABASE_URL: api.db.url,
    REDIS_URL: api.config.REDIS_URL,
    QUEUE_PREFIX: api.config.QUEUE_PREFIX,
    APP_SECRET: api.config.APP_SECRET ?? '',
  };
}
