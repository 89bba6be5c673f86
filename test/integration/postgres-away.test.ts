import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const readMessage = 'The service cannot reach its database right now; try again shortly.';
const writeMessage =
  'The service cannot reach its database right now, so whether this request took effect is not known; ' +
  'retrieve the object before sending it again.';

async function expectUnavailable(name: keyof ReturnType<typeof requests>): Promise<void> {
  const { ms, response } = await timed(name);
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
    const pending = timed('retrieve');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.stop();
    const { ms, response } = await pending;
    expect({ status: response.status, type: (response.body.error as { type?: string })?.type }).toEqual({
      status: 503,
      type: 'unavailable',
    });
    expect(ms).toBeLessThan(boundMs);
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
});
