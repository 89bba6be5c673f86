import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import type { TestAuthority } from './tls.js';

/** A loopback port nothing listens on (as of now). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether anything takes a connection on this loopback port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Starts the server (again) on the same port; resolves once it takes connections. */
  start(): Promise<void>;
  /** Kills the server outright (SIGKILL), as a crash would; resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * A redis-server of a test's own on a free loopback port, which the test may kill and start again (never
 * the machine's 127.0.0.1:6379, which other test files use). Nothing is kept across a restart.
 */
export async function privateRedis(port?: number): Promise<PrivateRedis> {
  const chosen = port ?? (await freePort());
  let server: ChildProcess | undefined;
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    async start() {
      server = spawn(
        'redis-server',
        ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      for (let tries = 0; tries < 100 && !(await listening(chosen)); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (!(await listening(chosen))) throw new Error(`redis-server did not start on port ${chosen}`);
    },
    async kill() {
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      const gone = once(server, 'exit');
      server.kill('SIGKILL');
      await gone;
    },
  };
}

export interface TlsRedis {
  /** `rediss://127.0.0.1:<port>`: the only way in (no plain port). */
  url: string;
  /** The private CA that signed the server's certificate, for REDIS_CA_FILE. */
  caFile: string;
  close(): Promise<void>;
}

/**
 * A redis-server that speaks TLS only, on a free loopback port, with a certificate signed by `authority`
 * (test/helpers/tls.ts `testAuthority`), as a managed Redis with a private CA is. Clients show no
 * certificate of their own.
 */
export async function tlsRedis(authority: TestAuthority): Promise<TlsRedis> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    [
      ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ['--tls-cert-file', authority.certFile, '--tls-key-file', authority.keyFile],
      ['--tls-ca-cert-file', authority.caFile, '--tls-auth-clients', 'no'],
    ].flat(),
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let problem = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    problem += chunk.toString('utf8');
  });
  for (let tries = 0; tries < 100 && server.exitCode === null && !(await listening(port)); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!(await listening(port))) throw new Error(`redis-server with TLS did not start on ${port}: ${problem}`);
  return {
    url: `rediss://127.0.0.1:${port}`,
    caFile: authority.caFile,
    async close() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const gone = once(server, 'exit');
      server.kill('SIGKILL');
      await gone;
    },
  };
}
