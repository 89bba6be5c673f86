import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, listening } from './redis-server.js';
import { ensureDebianPackage, postgresAdminUrl } from './services.js';

const program = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** `url` (a test database's direct URL) pointed at the pooler instead. */
  via(url: string): string;
  /** Stops the pooler's process (SIGSTOP): connections stay open and nothing answers, as a hung pooler. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A PgBouncer of a test's own in transaction mode in front of the machine's Postgres, on a free loopback
 * port, with a small pool so that concurrent requests share server connections (and a statement meets a
 * server connection its client never used). Every database on the server passes through under its own name.
 */
export async function startPgBouncer(options: { poolSize?: number } = {}): Promise<PgBouncer> {
  ensureDebianPackage('pgbouncer', program);
  if (!existsSync(program)) {
    throw new Error(`${program} is missing and could not be installed here: apt-get install pgbouncer`);
  }
  const port = await freePort();
  const upstream = new URL(postgresAdminUrl);
  const dir = mkdtempSync(join(tmpdir(), 'rebuttal-pgbouncer-'));
  // Run as root, pgbouncer must be told a user to become (-u); that user reads these files.
  chmodSync(dir, 0o755);
  const user = decodeURIComponent(upstream.username || 'postgres');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 500',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  let output = '';
  const asRoot = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const child = spawn(program, [...asRoot, join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('error', (error) => (output += error.message));
  for (let tries = 0; tries < 100; tries++) {
    if (child.exitCode !== null) break;
    if (await listening(port)) {
      return {
        port,
        via(url) {
          const pooled = new URL(url);
          pooled.host = `127.0.0.1:${port}`;
          return pooled.toString();
        },
        pause: () => child.kill('SIGSTOP'),
        resume: () => child.kill('SIGCONT'),
        async close() {
          if (child.exitCode === null && child.signalCode === null) {
            const gone = once(child, 'exit');
            child.kill('SIGCONT');
            // SIGTERM closes at once (SIGINT would wait for its clients to leave).
            child.kill('SIGTERM');
            await gone;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`pgbouncer did not start on port ${port}: ${output.trim().split('\n').at(-1)}`);
}
