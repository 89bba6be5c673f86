import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, openDatabase } from '../../src/db/client.js';
import { readCaFile } from '../../src/db/tls.js';
import { callPort, startTestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { daysFromNow, requiredParams } from '../helpers/disputes.js';
import { exerciseEngine, exerciseSettings } from '../helpers/engine-exercise.js';
import { startTlsPostgres, type TlsPostgres } from '../helpers/postgres-tls.js';
import {
  logLines,
  type ServiceProcess,
  startProcess,
  startWorkerProcess,
  waitForOutput,
} from '../helpers/processes.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * TLS to Postgres (docs/operations.md "TLS to Postgres"), on a Postgres of this file's own that takes
 * connections over TLS only, with a certificate from a CA made for it. The web process, a worker process
 * and the CLI run as an operator runs them, given `sslmode` in DATABASE_URL and the CA in
 * DATABASE_CA_FILE; each misconfiguration stops a process at start with one line saying what to fix.
 */
let pg: TlsPostgres;
let dataDir: string;
const prefix = testRedisPrefix();
const running: ServiceProcess[] = [];

beforeAll(async () => {
  pg = await startTlsPostgres();
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-pg-tls-data-'));
});
afterEach(() => {
  for (const each of running.splice(0)) each.child.kill('SIGKILL');
});
afterAll(async () => {
  await pg?.close();
  await dropKeys(redisUrl, prefix);
  await rm(dataDir, { recursive: true, force: true });
});

/** What every process is given: the TLS Postgres as `url` says, and the CA unless told otherwise. */
const deployment = (url: string, caFile = pg.caFile): Record<string, string> => ({
  HOME: process.env.HOME ?? '',
  PATH: process.env.PATH ?? '',
  DATABASE_URL: url,
  DATABASE_CA_FILE: caFile,
  APP_SECRET: 'tls-test-app-secret-of-at-least-32-characters',
  QUEUE_PREFIX: prefix,
  REDIS_URL: redisUrl,
  DATA_DIR: dataDir,
});

function start(entry: string, env: Record<string, string>): ServiceProcess {
  const started = startProcess(entry, env);
  running.push(started);
  return started;
}

/** The line a process that could not start wrote, and its exit code. */
async function refusal(started: ServiceProcess): Promise<{ code: number | null; errors: string }> {
  return { code: await started.exited, errors: started.errors() };
}

describe('DATABASE_URL with sslmode=verify-full and DATABASE_CA_FILE', () => {
  it('migrates, serves, and sends a queued submission, every connection over TLS', async () => {
    const env = deployment(pg.url('verify-full'));
    // The CLI is the first to connect: it applies the migrations to the empty database.
    const created = await runCli(['org', 'create', '--name', 'Over TLS', '--json'], env);
    expect(created.stderr).toBe('');
    const { test_key: key } = JSON.parse(created.stdout) as { test_key: string };

    const web = start('src/server.ts', { ...env, WORKERS: 'none', PORT: '0' });
    const [worker] = await Promise.all([
      startWorkerProcess({ ...env, WORKERS: 'submission' }),
      waitForOutput(web, '"msg":"serving HTTPS"'),
    ]);
    running.push(worker);
    const port = logLines(web, /^serving HTTPS$/)[0]?.port as number;

    const template = await callPort(port, 'POST', '/v1/templates', {
      key,
      json: { id: 'tpl_tls', name: 'Over TLS', fields: [{ key: 'order_id', type: 'text', required: true }] },
    });
    expect(template.status, template.text).toBe(201);
    // Due within the queue lead (24 hours): queued to be submitted at once, by the worker process.
    const params = requiredParams({
      due_by: daysFromNow(0.5),
      template: 'tpl_tls',
      fields: { order_id: 'A-1' },
    });
    const queued = await callPort(port, 'POST', '/v1/disputes', { key, json: { ...params, queue: true } });
    expect({ status: queued.status, state: queued.body.state }, queued.text).toEqual({
      status: 201,
      state: 'queued',
    });
    await expect
      .poll(async () => (await callPort(port, 'GET', `/v1/disputes/${params.id}`, { key })).body.state, {
        timeout: 20_000,
      })
      .toBe('submitted');

    // The server's view: every client connection (the web process's, the worker's, this one) is TLS.
    const probe = connectDatabase(pg.url('verify-full'), { max: 1, ca: await readCaFile(pg.caFile) });
    try {
      const connections = await probe.sql<{ ssl: boolean; version: string }[]>`
        select s.ssl, s.version from pg_stat_activity a join pg_stat_ssl s using (pid)
        where a.backend_type = 'client backend'`;
      expect(connections.length).toBeGreaterThanOrEqual(3);
      expect(new Set(connections.map(({ ssl, version }) => `${ssl} ${version}`))).toEqual(
        new Set(['true TLSv1.3']),
      );
    } finally {
      await probe.close();
    }
    expect(web.errors()).toBe('');
    expect(worker.errors()).toBe('');
  }, 120_000);
});

describe('the engine on a Postgres over TLS', () => {
  it('sends queued submissions once, delivers webhooks, serves Bull Board and limits rates', async () => {
    const api = await startTestApi({
      database: () => pg.database(),
      env: { ...exerciseSettings, DATABASE_CA_FILE: pg.caFile },
    });
    try {
      const figures = await exerciseEngine(api, { disputes: 5 });
      expect(figures).toMatchObject({ submissions: 10 });
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe('a TLS misconfiguration stops the process at start with what to fix', () => {
  const where = (host = 'localhost') => `DATABASE_URL (postgres ${host}:${pg.port}/postgres)`;
  const untrusted = '(unable to verify the first certificate): set DATABASE_CA_FILE to the CA certificate';

  it('in one line on stderr, from the web process, a worker process and the CLI', async () => {
    // One after another: three processes starting at once on two cores could outlast the CLI's timeout.
    const web = await refusal(
      start('src/server.ts', { ...deployment(pg.url('verify-full'), ''), PORT: '0' }),
    );
    const worker = await refusal(
      start('workers/main.ts', {
        ...deployment(pg.url('verify-full'), pg.otherCaFile),
        WORKERS: 'submission',
      }),
    );
    const cli = await runCli(['org', 'list'], deployment(pg.url('verify-full', '127.0.0.2')));
    expect(web).toEqual({
      code: 1,
      errors: `rebuttal could not start: ${where()}: the server's certificate is not signed by a CA this machine trusts ${untrusted} (PEM) that signed it\n`,
    });
    expect(worker).toEqual({
      code: 1,
      errors: `rebuttal workers could not start: ${where()}: the server's certificate is not signed by the CA in DATABASE_CA_FILE ${untrusted} that signed it\n`,
    });
    // 127.0.0.2 is the server too, but its certificate names localhost and 127.0.0.1 only.
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({
      code: 1,
      stderr:
        `error: ${where('127.0.0.2')}: the server's certificate is not for the host in the URL ` +
        "(Hostname/IP does not match certificate's altnames: IP: 127.0.0.2 is not in the cert's list: 127.0.0.1): " +
        'connect by a name the certificate gives, or use sslmode=verify-ca to verify the chain alone\n',
    });
  }, 120_000);

  /** What openDatabase, which every entry point calls first, makes of these settings. */
  const opened = (url: string, caFile = pg.caFile) =>
    openDatabase({ DATABASE_URL: url, DATABASE_CA_FILE: caFile || undefined, DATA_DIR: dataDir }).then(
      (database) => database.close().then(() => 'opened'),
      (error: Error) => error.message,
    );

  it('takes verify-ca where the host is not in the certificate; refuses a connection without TLS', async () => {
    expect(await opened(pg.url('verify-ca', '127.0.0.2'))).toBe('opened');
    expect(await opened(pg.url('disable'), '')).toBe(
      `${where()}: the server refuses connections without TLS ` +
        '(no pg_hba.conf entry for host "127.0.0.1", user "postgres", database "postgres", no encryption): ' +
        'add sslmode=verify-full to DATABASE_URL (with DATABASE_CA_FILE for a private CA)',
    );
  });

  it('checks DATABASE_DIRECT_URL as it checks DATABASE_URL, with the same CA', async () => {
    const database = openDatabase({
      DATABASE_URL: pg.url('verify-full'),
      DATABASE_DIRECT_URL: pg.url('verify-full', '127.0.0.2'),
      DATABASE_CA_FILE: pg.caFile,
      DATA_DIR: dataDir,
    });
    await expect(database).rejects.toThrow(
      `DATABASE_DIRECT_URL (postgres 127.0.0.2:${pg.port}/postgres): the server's certificate is not for the host in the URL`,
    );
  });

  it('refuses a CA file it cannot read, or that holds no certificate', async () => {
    const missing = join(dataDir, 'missing.pem');
    expect(await opened(pg.url('verify-full'), missing)).toBe(
      `DATABASE_CA_FILE: cannot read ${missing} (ENOENT)`,
    );
    expect(await opened(pg.url('verify-full'), join(dataDir, '..'))).toBe(
      `DATABASE_CA_FILE: cannot read ${join(dataDir, '..')} (EISDIR)`,
    );
    const key = join(dataDir, 'not-a-certificate.pem');
    await writeFile(key, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    expect(await opened(pg.url('verify-full'), key)).toBe(
      `DATABASE_CA_FILE: ${key} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  });

  // Last: the server has no TLS from here on.
  it('refuses a server without TLS when verification is asked', async () => {
    await pg.turnTlsOff();
    expect(await opened(pg.url('verify-full'))).toBe(
      `${where()}: the server closed the connection before TLS was set up: ` +
        'it does not take TLS connections; turn TLS on at the server (ssl = on), or connect to one that has it',
    );
  });
});
