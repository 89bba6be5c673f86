import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { get } from 'node:https';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type ServiceProcess, startProcess, waitForOutput } from '../helpers/processes.js';
import { freePort, listening } from '../helpers/redis-server.js';
import { testRedisPrefix } from '../helpers/services.js';

/**
 * The start's Redis: when nothing answers at REDIS_URL on this machine, `npm start` runs a redis-server
 * of its own and stops it when it stops; without one installed, it says how to provide Redis. The
 * service's entry point runs as `npm start` runs it (src/server.ts), with the embedded database: only
 * that zero-configuration start manages a Redis (a process given DATABASE_URL never does:
 * redis-away.test.ts).
 */

let dataDir: string;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type Server = ServiceProcess;

const prefix = testRedisPrefix();

function startServer(env: Record<string, string>): Server {
  return startProcess('src/server.ts', {
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    PORT: '0',
    QUEUE_PREFIX: prefix,
    DEMO: 'false',
    LOG_LEVEL: 'info',
    ...env,
  });
}

const waitFor = (server: Server, text: string) => waitForOutput(server, text, 120);

/** The line the start logs about the redis-server it started. */
function startedLine(server: Server): { address: string; dir: string; pid: number } {
  const started = server
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"started a managed redis-server"'))
    .map((line) => JSON.parse(line) as { address: string; dir: string; pid: number });
  expect(started).toHaveLength(1);
  return started[0] as { address: string; dir: string; pid: number };
}

const managedPidOf = (server: Server) => startedLine(server).pid;

/** What Redis on the port answers a client that sends no password: its reply to PING, as sent. */
async function pingWithoutPassword(port: number): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.end('PING\r\n');
  let reply = '';
  for await (const chunk of socket) reply += String(chunk);
  return reply;
}

/** GET /readyz over HTTPS at host:port (a self-signed certificate): its status. */
function readyz(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get({ host, port, path: '/readyz', rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-redis-'));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start when no Redis answers', () => {
  it('starts a redis-server of its own on that port, and it is gone after shutdown', async () => {
    const port = await freePort();
    expect(await listening(port)).toBe(false);
    const server = startServer({ REDIS_URL: `redis://127.0.0.1:${port}`, PATH: process.env.PATH ?? '' });
    try {
      await waitFor(server, 'Rebuttal is running at');
      const redis = startedLine(server);
      expect(redis).toMatchObject({ address: `127.0.0.1:${port}`, dir: join(dataDir, 'redis') });
      expect(alive(redis.pid)).toBe(true);
      expect(await listening(port)).toBe(true);
      // Its data is where the start said, with the append-only files that keep queued jobs.
      expect(existsSync(join(dataDir, 'redis', 'appendonlydir'))).toBe(true);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(alive(redis.pid)).toBe(false);
      expect(await listening(port)).toBe(false);
      expect(server.output()).toContain('"msg":"stopped the managed redis-server"');
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }, 120_000);

  it('stops the redis-server it started even when it is killed outright (SIGKILL)', async () => {
    const port = await freePort();
    const server = startServer({ REDIS_URL: `redis://127.0.0.1:${port}`, PATH: process.env.PATH ?? '' });
    try {
      await waitFor(server, 'Rebuttal is running at');
      const pid = managedPidOf(server);
      expect(alive(pid)).toBe(true);
      server.child.kill('SIGKILL');
      await server.exited;
      await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
      expect(await listening(port)).toBe(false);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }, 120_000);

  it('keeps a password in its settings file, never on its command line', async () => {
    const port = await freePort();
    const password = 'not on the command line';
    const server = startServer({
      REDIS_URL: `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`,
      PATH: process.env.PATH ?? '',
    });
    try {
      await waitFor(server, 'Rebuttal is running at');
      const pid = managedPidOf(server);
      const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      expect(commandLine).not.toContain(password);
      expect(await readFile(join(dataDir, 'redis', 'redis.conf'), 'utf8')).toContain(
        `requirepass ${JSON.stringify(password)}`,
      );
      expect(server.output()).not.toContain(password);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(alive(pid)).toBe(false);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }, 120_000);

  it('guards it with a password generated in DATA_DIR: a client without it is refused; the service works', async () => {
    const port = await freePort();
    const server = startServer({ REDIS_URL: `redis://127.0.0.1:${port}`, PATH: process.env.PATH ?? '' });
    try {
      await waitFor(server, 'Rebuttal is running at');
      const file = join(dataDir, 'redis-password');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const password = (await readFile(file, 'utf8')).trim();
      expect(password.length).toBeGreaterThanOrEqual(32);

      expect(await pingWithoutPassword(port)).toMatch(/^-NOAUTH /);
      const owner = new Redis({ port, password, maxRetriesPerRequest: 0 });
      expect(await owner.ping()).toBe('PONG');
      owner.disconnect();

      // The service itself reaches it (/readyz asks Redis and the database), on loopback alone.
      const https = Number(/Rebuttal is running at https:\/\/localhost:(\d+)/.exec(server.output())?.[1]);
      expect(await readyz('127.0.0.1', https)).toBe(200);
      await expect(readyz('127.0.0.2', https)).rejects.toThrow(/ECONNREFUSED/);
      expect(server.output()).not.toContain(password);
      expect(await readFile(`/proc/${managedPidOf(server)}/cmdline`, 'utf8')).not.toContain(password);
      // The CLI's jobs commands beside it, configured alike, find the password where the start keeps it.
      const listed = await runCli(['jobs', 'list', '--queue', 'submission', '--state', 'failed', '--json'], {
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        REDIS_URL: `redis://127.0.0.1:${port}`,
        QUEUE_PREFIX: prefix,
      });
      expect(listed, listed.stderr).toMatchObject({ code: 0, stdout: '[]\n' });

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }, 120_000);

  it('something on the port that is not Redis is named, not taken for a free port', async () => {
    // Takes connections and never answers.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const server = startServer({ REDIS_URL: `redis://127.0.0.1:${port}`, PATH: process.env.PATH ?? '' });
      expect(await server.exited).toBe(1);
      expect(server.output().trim().split('\n').at(-1)).toBe(
        `rebuttal could not start: something at 127.0.0.1:${port} (REDIS_URL) is not a Redis this service ` +
          'can use (no answer from Redis within 2000 ms): check REDIS_URL',
      );
    } finally {
      silent.close();
    }
  }, 60_000);

  it('without redis-server installed, exits 1 saying how to provide Redis', async () => {
    const port = await freePort();
    const emptyPath = await mkdtemp(join(tmpdir(), 'rebuttal-no-redis-'));
    const server = startServer({ REDIS_URL: `redis://127.0.0.1:${port}`, PATH: emptyPath });
    try {
      expect(await server.exited).toBe(1);
      expect(server.output().trim().split('\n').at(-1)).toBe(
        `rebuttal could not start: Redis is needed and none answers at 127.0.0.1:${port}, and no ` +
          'redis-server is installed to start one. Install Redis (Debian/Ubuntu: sudo apt install ' +
          'redis-server; macOS: brew install redis) and run npm start again, or set REDIS_URL to a Redis ' +
          'you have (REDIS_URL=redis://host:6379).',
      );
    } finally {
      await rm(emptyPath, { recursive: true, force: true });
    }
  }, 60_000);

  it('a REDIS_URL on another machine that does not answer is an error, not a reason to start one', async () => {
    // 192.0.2.0/24 is TEST-NET-1: never routed, so the connection fails (or times out) at once.
    const server = startServer({ REDIS_URL: 'redis://:secret@192.0.2.1:6379', PATH: process.env.PATH ?? '' });
    expect(await server.exited).toBe(1);
    const last = server.output().trim().split('\n').at(-1);
    expect(last).toBe(
      'rebuttal could not start: Redis at 192.0.2.1:6379 (REDIS_URL) does not answer: check that it runs and is reachable',
    );
    expect(server.output()).not.toContain('secret');
  }, 60_000);
});

describe('the Procfile processes without DATABASE_URL', () => {
  const run = (args: string[], env: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      env: { HOME: process.env.HOME, PATH: process.env.PATH, DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    return once(child, 'exit').then(([code]) => ({ code: code as number | null, output: output.trim() }));
  };

  it('a worker process refuses the embedded database, which only npm start may hold', async () => {
    expect(await run(['workers/main.ts'], {})).toEqual({
      code: 1,
      output:
        'rebuttal workers could not start: DATABASE_URL is required: the embedded database is for `npm start`, ' +
        'which runs the workers itself',
    });
  }, 60_000);

  it('a web process without workers (WORKERS=none) refuses it too', async () => {
    expect(await run(['src/server.ts'], { WORKERS: 'none' })).toEqual({
      code: 1,
      output:
        "rebuttal could not start: invalid configuration: WORKERS other than all needs DATABASE_URL (the embedded database is one process's)",
    });
  }, 60_000);
});
