import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { createLogger } from '../../src/logger.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

let api: TestApi;
let server: Server;
let port: number;
const lines: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  // Behind a TLS-terminating proxy (trusted X-Forwarded-Proto), so a plain loopback server will do.
  const app = createApp({ ...api.deps, logger: createLogger('info', sink), trustProxy: true });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await api.close();
});

describe('an unhandled database error', () => {
  it('answers 500 server_error naming the request, and logs the failure without the query parameters', async () => {
    const org = await api.createOrg();
    // A column too narrow for what the service writes: the insert fails inside Postgres.
    await api.db.sql`alter table disputes alter column customer type varchar(8)`;
    const secret = 'Confidential Customer 4242';
    const response = await fetch(`http://127.0.0.1:${port}/v1/disputes`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${org.test_key}:`).toString('base64')}`,
        'content-type': 'application/json',
        'x-forwarded-proto': 'https',
      },
      body: JSON.stringify({
        id: 'dp_log_1',
        charge: 'ch_1',
        reason: 'fraudulent',
        charged_at: '2026-10-01',
        disputed_at: '2026-11-01',
        due_by: '2030-01-01',
        currency: 'usd',
        amount: 100,
        customer: secret,
      }),
    });
    const requestId = response.headers.get('request-id');
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      url: '/v1/disputes',
      livemode: false,
      error: {
        status: 500,
        type: 'server_error',
        message: `An internal error occurred (request ${requestId}).`,
      },
    });

    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const failure = logged.find((entry) => entry.msg === 'unhandled error');
    expect(failure).toMatchObject({
      request_id: requestId,
      err: { type: 'DrizzleQueryError', cause: { type: 'PostgresError', code: '22001' } },
    });
    const log = lines.join('\n');
    for (const leak of [secret, org.test_key, 'ch_1']) expect(log.includes(leak), leak).toBe(false);
  });
});
