import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/**
 * Requests Node refuses before the app sees them (src/api/client-errors.ts) still get the JSON error body
 * and a `Request-Id`, as every answer does (docs/api.md, "Conventions").
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

/** Sends `bytes` over TLS as they are and resolves with everything the server answers. */
function sendRaw(bytes: string): Promise<string> {
  const { port } = new URL(api.origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false }, () =>
      socket.write(bytes),
    );
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('answers made before the app', () => {
  it('headers over 16 KiB: 413 request_too_large with a Request-Id', async () => {
    const response = await api.call('GET', '/v1/openapi.json', {
      headers: { 'x-padding': 'x'.repeat(20_000) },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      url: null,
      livemode: false,
      error: {
        status: 413,
        type: 'request_too_large',
        message: 'The request line and headers are larger than 16 KiB.',
      },
    });
    expect(response.headers['request-id']).toMatch(/^req_[0-9a-f]{20}$/);
  });

  it('bytes that are not HTTP: 400 invalid_request with a Request-Id', async () => {
    const answer = await sendRaw('NOT HTTP AT ALL\r\n\r\n');
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nRequest-Id: req_[0-9a-f]{20}\r\n/);
    expect(JSON.parse(body)).toEqual({
      url: null,
      livemode: false,
      error: { status: 400, type: 'invalid_request', message: 'The request is not valid HTTP.' },
    });
  });
});
