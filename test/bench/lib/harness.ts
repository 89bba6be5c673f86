import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { settingNames } from '../../../src/config.js';
import { postgresAdminUrl, withDatabase } from '../../helpers/services.js';
import { type CpuShares, cpuShares, cpuSnapshot } from './cpu-accounting.js';

/** Shared plumbing of the benches: flags, cleanup, a throwaway database, child servers, load and output. */

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const quick = process.argv.includes('--quick');
export const loopback = '127.0.0.1';

// ---------------------------------------------------------------------------------------------------------
// Cleanup: every resource registers its own undo; they run newest first, on success, failure or a signal.

const cleanups: (() => Promise<void>)[] = [];

export function onCleanup(undo: () => Promise<void>): void {
  cleanups.unshift(undo);
}

let cleaning: Promise<void> | undefined;

/** Runs every undo once, even when a signal and a failing body both ask for it. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const undo = cleanups.shift();
      try {
        await undo?.();
      } catch (error) {
        console.error('cleanup failed:', error instanceof Error ? error.message : error);
      }
    }
  })();
  return cleaning;
}

/** Runs a bench body, then cleans up whatever happened; exits non-zero on failure or interruption. */
export async function runBench(body: () => Promise<void>): Promise<never> {
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (interrupted) return;
      interrupted = true;
      console.error(`\n${signal}: cleaning up`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  let code = 0;
  try {
    await body();
  } catch (error) {
    if (!interrupted) console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    code = 1;
  }
  await cleanUp();
  process.exit(interrupted ? 130 : code);
}

// ---------------------------------------------------------------------------------------------------------
// A fresh, empty database of the bench's own (the service migrates it on start), dropped at the end.

export async function createBenchDatabase(): Promise<{ name: string; url: string }> {
  const name = `rebuttal_bench_${randomBytes(6).toString('hex')}`;
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  try {
    // Databases of bench runs that were killed before they could drop theirs.
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like 'rebuttal_bench_%'
        and not exists (select 1 from pg_stat_activity a where a.datname = pg_database.datname)`;
    for (const { datname } of stale)
      await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const cleaner = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
    try {
      await cleaner.unsafe(`drop database if exists "${name}" with (force)`);
    } finally {
      await cleaner.end();
    }
  });
  return { name, url: withDatabase(postgresAdminUrl, name) };
}

/** The PostgreSQL backends connected to a database (their CPU is part of each request's cost). */
export async function databaseBackends(database: string): Promise<number[]> {
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = ${database} and pid <> pg_backend_pid()`;
    return rows.map((row) => row.pid);
  } finally {
    await admin.end();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Child servers: `node --import tsx <script>` with the given environment, stdout to /dev/null.

export interface ChildServer {
  name: string;
  port: number;
  url: string;
  process: ChildProcess;
  /** The last few KiB of its stderr, for the error message when it dies. */
  stderr(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, loopback, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/** Settings of the service that the bench must not inherit from the shell running it. */
const serviceSettings = settingNames;

export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  options: { nodeArgs?: string[] } = {},
): Promise<ChildServer> {
  const port = Number(env.PORT);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !serviceSettings.includes(key)),
  );
  // BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) goes to every server child, for profiling.
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...extra, ...(options.nodeArgs ?? []), '--import', 'tsx', script], {
    cwd: root,
    env: { ...inherited, NODE_ENV: 'production', ...env },
    // Log lines go to /dev/null: written in full by the server, read by no one on this machine's 2 cores.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  });
  const server: ChildServer = {
    name,
    port,
    url: `https://${loopback}:${port}`,
    process: child,
    stderr: () => stderr,
  };
  await waitUntilAnswering(server, exited);
  return server;
}

/**
 * The service's web process as the Procfile runs it (the read path alone, no workers beside it), at
 * production log level, on `databaseUrl` (migrated on start), serving DATA_DIR/tls's certificate.
 */
export async function startWebService(
  name: string,
  databaseUrl: string,
  dataDir: string,
): Promise<ChildServer> {
  return startServer(name, 'src/server.ts', {
    DATABASE_URL: databaseUrl,
    APP_SECRET: 'bench-app-secret-of-at-least-32-characters',
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // The limiter runs on every request as in production (one Redis call each); the limit itself is set
    // out of reach, since one key drives all the load here.
    RATE_LIMIT_PER_SECOND: '1000000',
    QUEUE_PREFIX: `rebuttal_bench_${process.pid}`,
    WORKERS: 'none',
    // No load balancer to drain from: the default 5 s on SIGTERM would only make every run wait them out.
    SHUTDOWN_DRAIN_SECONDS: '0',
  });
}

function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: loopback,
        port,
        path: '/',
        method: 'GET',
        rejectUnauthorized: false,
        agent: false,
        timeout: 1000,
      },
      (res) => {
        res.resume();
        resolve(true);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function waitUntilAnswering(server: ChildServer, exited: Promise<void>): Promise<void> {
  let dead = false;
  void exited.then(() => {
    dead = true;
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (dead) throw new Error(`${server.name} exited while starting:\n${server.stderr()}`);
    if (await probe(server.port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${server.name} did not answer on ${server.url} within 60 s:\n${server.stderr()}`);
}

/** Fails the bench if a server died under load (its figures would be those of connection errors). */
export function assertAlive(server: ChildServer): void {
  if (server.process.exitCode !== null || server.process.signalCode !== null) {
    throw new Error(`${server.name} has exited:\n${server.stderr()}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// One HTTPS request, for sanity checks before loading, or timed over a keep-alive agent.

export function getJson(
  server: ChildServer,
  path: string,
  headers: Record<string, string>,
  agent: Agent | false = false,
): Promise<{ status: number; body: unknown; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      { host: loopback, port: server.port, path, headers, rejectUnauthorized: false, agent },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          // Until the last byte: parsing the body is the client's work, not the server's.
          const ms = performance.now() - started;
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), ms });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------------
// Load: autocannon over HTTPS (keep-alive, no pipelining), cycling through the given paths.

export interface Measurement {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  seconds: number;
  cpu: CpuShares;
}

export interface LoadOptions {
  paths: readonly string[];
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  /** Further processes whose CPU counts against the target (its database backends), read at the start. */
  backends?: () => Promise<number[]>;
}

export async function load(label: string, server: ChildServer, options: LoadOptions): Promise<Measurement> {
  assertAlive(server);
  let next = 0;
  const { paths } = options;
  const backends = (await options.backends?.()) ?? [];
  const before = cpuSnapshot(server.process.pid, backends);
  const result = await autocannon({
    url: server.url,
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    headers: options.headers,
    requests: [
      {
        method: 'GET',
        setupRequest(req) {
          req.path = paths[next++ % paths.length] ?? '/';
          return req;
        },
      },
    ],
  });
  const after = cpuSnapshot(server.process.pid, backends);
  assertAlive(server);
  const completed = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || completed === 0) {
    throw new Error(
      `${label}: ${completed} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors, ` +
        `${result.timeouts} timeouts (status codes ${JSON.stringify(result.statusCodeStats)}); ` +
        'a run with failed requests measures nothing',
    );
  }
  return {
    label,
    requestsPerSecond: completed / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    requests: completed,
    seconds: result.duration,
    cpu: cpuShares(before, after, completed),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Timing.

/** Seconds `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------------------
// Output.

export function describeMachine(): string {
  return `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'})`;
}

export function formatMeasurement(m: Measurement): string {
  return (
    `${m.label.padEnd(28)} ${m.requestsPerSecond.toFixed(0).padStart(7)} req/s   ` +
    `p50 ${m.p50.toFixed(1).padStart(6)} ms   p99 ${m.p99.toFixed(1).padStart(6)} ms   ` +
    `mean ${m.mean.toFixed(2).padStart(6)} ms   (${m.requests} requests in ${m.seconds.toFixed(1)} s)\n` +
    `${''.padEnd(28)} CPU per request: server ${m.cpu.serverMs.toFixed(3)} ms, database ` +
    `${m.cpu.backendsMs.toFixed(3)} ms, autocannon ${m.cpu.loadGeneratorMs.toFixed(3)} ms; machine ` +
    `${percent(m.cpu.machineBusy)} busy, ${percent(m.cpu.others)} by other processes`
  );
}

const percent = (share: number) => `${(share * 100).toFixed(0)}%`;

/** Warns when something else is using the machine, since requests/s then measure it too. */
export function disturbance(measurements: Measurement[]): string | null {
  const worst = Math.max(...measurements.map((m) => m.cpu.others));
  return worst > 0.05
    ? `WARNING: other processes used up to ${percent(worst)} of the machine during measurement; ` +
        'requests/s and latencies are understated (CPU per request is the steadier figure)'
    : null;
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** The line each bench ends with: `RESULT <name> value=<number> unit=<unit> ratio=<number> target=<number>`. */
export function resultLine(name: string, value: number, unit: string, ratio: number, target: number): string {
  return `RESULT ${name} value=${round(value, 1)} unit=${unit} ratio=${round(ratio, 3)} target=${target}`;
}
