import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectApiError } from '../helpers/security.js';

/**
 * The operators' sign-in guard (src/operator-sign-in.ts) counts by the client's block of addresses, as
 * TRUST_PROXY lets the service know it: a client cannot escape it by rotating addresses within its IPv6
 * /64, nor by writing its own X-Forwarded-For when it reaches the port without the proxy.
 */
const password = 'operator password';
const operator = { ADMIN_USER: 'operator', ADMIN_PASSWORD: password };
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const right = basic(`operator:${password}`);

/** One request to Bull Board's API, from `forwardedFor` as the proxy (or the client itself) says. */
const board = (api: TestApi, authorization: string, forwardedFor: string) =>
  api.call('GET', '/admin/queues/api/queues', {
    headers: { authorization, 'x-forwarded-for': forwardedFor },
  });

async function guessTenTimes(api: TestApi, from: (n: number) => string): Promise<void> {
  for (let n = 0; n < 10; n++) {
    expect((await board(api, basic(`operator:guess ${n}`), from(n))).status).toBe(401);
  }
}

describe('behind a trusted proxy (TRUST_PROXY=true: the proxy is on loopback here)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ workers: [], env: { ...operator, TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('counts an IPv6 client per /64: rotating addresses within it does not escape the guard', async () => {
    await guessTenTimes(api, (n) => `2001:db8:1:2::${n + 1}`);
    const refused = await board(api, right, '2001:db8:1:2:ffff:eeee:dddd:cccc');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: {
        status: 429,
        type: 'rate_limited',
        message: 'Too many wrong operator credentials from this address; try again later.',
      },
    });
    expect((await board(api, right, '2001:db8:1:3::1')).status).toBe(200);
  });

  it('counts an IPv4 client per address', async () => {
    await guessTenTimes(api, () => '203.0.113.1');
    expect((await board(api, right, '203.0.113.1')).status).toBe(429);
    expect((await board(api, right, '::ffff:203.0.113.1')).status).toBe(429);
    expect((await board(api, right, '203.0.113.2')).status).toBe(200);
  });
});

describe('reached directly, not through the configured proxy (TRUST_PROXY=192.0.2.10)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ workers: [], env: { ...operator, TRUST_PROXY: '192.0.2.10' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it("ignores the client's own X-Forwarded-For: its guesses count against its real address", async () => {
    await guessTenTimes(api, (n) => `198.51.100.${n + 1}`);
    expect((await board(api, right, '198.51.100.200')).status).toBe(429);
  });

  it("ignores the client's own X-Forwarded-Proto: plain HTTP is refused", async () => {
    const { test_key } = await api.createOrg();
    const response = await api.callPlain('GET', '/v1/disputes', {
      key: test_key,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' },
    });
    expectApiError(response, { status: 403, type: 'insecure_connection', url: '/v1/disputes' });
  });
});
