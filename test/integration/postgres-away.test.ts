import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundingDatabaseWaits, requestDatabaseWaitMs } from '../../src/db/bounded.js';
import { connectDatabase } from '../../src/db/client.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { type ApiResponse, startTestApi, type TestApi } from '../helpers/api.js';
import { type Dispute, newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';
import { postgresAdminUrl } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Postgres away (issue 13): the service reaches the real Postgres through a proxy this file controls, and
 * while it is down or black-holed every request answers 503 `unavailable` with Retry-After within the
 * readiness probe's 2 s, then works again once Postgres is back, without a restart.
 */
let proxy: TcpProxy;
let api: TestApi;
let tenant: Tenant;
let dispute: Dispute;

beforeAll(async () => {
  const direct = new URL(postgresAdminUrl);
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  api = await startTestApi({
    workers: ['submission'],
    databaseUrl: (url) => {
      const viaProxy = new URL(url);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      return viaProxy.toString();
    },
  });
  tenant = await newTenant(api);
  ({ dispute } = await submittableDispute(api, tenant));
});
afterAll(async () => {
  await proxy?.resume();
  await api?.close();
  await proxy?.close();
});

/** The bound: what the readiness probe allows Postgres, and so a client's wait for a 503. */
const boundMs = 2000;

const requests = () => ({
  list: { method: 'GET', path: '/v1/disputes', json: undefined },
  retrieve: { method: 'GET', path: `/v1/disputes/${dispute.id}`, json: undefined },
  update: { method: 'PUT', path: `/v1/disputes/${dispute.id}`, json: { fields: { note: 'Shipped.' } } },
  submit: { method: 'POST', path: `/v1/disputes/${dispute.id}/submit`, json: {} },
});

async function timed(
  name: keyof ReturnType<typeof requests>,
): Promise<{ ms: number; response: ApiResponse }> {
  const { method, path, json } = requests()[name];
  const started = performance.now();
  const response = await api.call(method, path, { key: tenant.key, ...(json && { json }) });
  return { ms: performance.now() - started, response };
}

const readMessage =
  'The service could not reach its database, or it did not answer in time; try again shortly.';
const writeMessage =
  'The service could not reach its database, or it did not answer in time, so whether this request took ' +
  'effect is not known; retrieve the object before sending it again.';

/** Asserts the 503 of docs/api.md, "Errors" exactly, answered within the bound; `pending` when already sent. */
async function expectUnavailable(
  name: keyof ReturnType<typeof requests>,
  pending = timed(name),
): Promise<void> {
  const { ms, response } = await pending;
  const { method, path } = requests()[name];
  expect({
    status: response.status,
    retryAfter: response.headers['retry-after'],
    body: response.body,
  }).toEqual({
    status: 503,
    retryAfter: '2',
    body: {
      url: path,
      livemode: false,
      error: { status: 503, type: 'unavailable', message: method === 'GET' ? readMessage : writeMessage },
    },
  });
  expect(ms).toBeLessThan(boundMs);
}

/** The driver's code at the bottom of an error's causes. */
function codeOf(error: unknown): unknown {
  let inner = error;
  while (inner instanceof Error && inner.cause) inner = inner.cause;
  return (inner as { code?: unknown }).code;
}

async function expectServed(): Promise<void> {
  expect((await timed('list')).response.status).toBe(200);
  expect((await timed('retrieve')).response.status).toBe(200);
  const updated = await timed('update');
  expect(updated.response.status, updated.response.text).toBe(200);
}

describe('Postgres away', () => {
  it('while it is down (open connections dropped, new ones refused): 503 unavailable within 2 s; then served again', async () => {
    await expectServed();
    await proxy.stop();
    for (const name of ['list', 'retrieve', 'update', 'submit'] as const) await expectUnavailable(name);
    await proxy.resume();
    await expectServed();
  });

  it('a connection dropped while its query waits: 503 unavailable at once', async () => {
    await proxy.blackhole();
    const pending = timed('update');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.stop();
    await expectUnavailable('update', pending);
    await proxy.resume();
    await expectServed();
  });

  it('while it accepts but never answers (a black hole): 503 unavailable within 2 s; then served again, the submit included', async () => {
    await proxy.blackhole();
    for (const name of ['list', 'retrieve', 'update', 'submit'] as const) await expectUnavailable(name);
    await proxy.resume();
    await expectServed();
    const submitted = await timed('submit');
    expect({ status: submitted.response.status, state: submitted.response.body.state }).toEqual({
      status: 201,
      state: 'submitted',
    });
  });

  it('a backend terminated (57P01, as a restart does): its statement and the next are unavailable, then it works', async () => {
    // Straight to Postgres, one connection: the server's own FATAL, with no proxy in between.
    const direct = connectDatabase(api.db.url, { max: 1 });
    // Awaited inside the scope: drizzle's queries run when awaited, and the bound is the scope's.
    const run = (statement: SQL) =>
      boundingDatabaseWaits(requestDatabaseWaitMs, async () => {
        await direct.db.execute(statement);
        return 'answered';
      }).catch((error: unknown) => ({ unavailable: isDatabaseUnavailable(error), code: codeOf(error) }));
    try {
      const sleeping = run(sql`select pg_sleep(1.2) as marker_57p01`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await api.db.sql`select pg_terminate_backend(pid) from pg_stat_activity
        where query like '%marker_57p01%' and pid <> pg_backend_pid()`;
      // postgres-js fails the statement on the close, and hands the server's FATAL to the next one.
      expect([await sleeping, await run(sql`select 1`), await run(sql`select 1`)]).toEqual([
        { unavailable: true, code: 'CONNECTION_CLOSED' },
        { unavailable: true, code: '57P01' },
        'answered',
      ]);
    } finally {
      await direct.close();
    }
  });
});
