import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, submittableDispute } from '../helpers/disputes.js';
import { expectApiError, rawExchange } from '../helpers/security.js';

/**
 * Security headers (src/api/middleware/security-headers.ts) on every answer: the API's, its errors', and
 * Bull Board's page, whose own policy still lets it load (admin-board.browser.test.ts drives it).
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    workers: ['submission'],
    env: { ADMIN_USER: 'operator', ADMIN_PASSWORD: 'operator password' },
  });
});
afterAll(async () => {
  await api.close();
});

const apiPolicy = "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'";

/** The headers every answer carries, over HTTPS. */
function expectHardened(headers: IncomingHttpHeaders, policy = apiPolicy): void {
  expect(headers).toMatchObject({
    'strict-transport-security': 'max-age=31536000',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': policy,
  });
}

/** A GET over HTTPS whose body need not be JSON (the board's page and scripts). */
function get(path: string, headers: Record<string, string> = {}) {
  return rawExchange({ secure: true, port: Number(new URL(api.origin).port), method: 'GET', path, headers });
}

describe('security headers', () => {
  it('are on an API answer', async () => {
    const { test_key } = await api.createOrg();
    const listed = await api.call('GET', '/v1/disputes', { key: test_key });
    expect(listed.status).toBe(200);
    expectHardened(listed.headers);
  });

  it('are on error answers: no key, an unknown path, a probe', async () => {
    const refused = await api.call('GET', '/v1/disputes');
    expectApiError(refused, { status: 401, type: 'authentication', url: '/v1/disputes' });
    expectHardened(refused.headers);
    const unknown = await api.call('GET', '/nowhere');
    expect(unknown.status).toBe(404);
    expectHardened(unknown.headers);
    expectHardened((await api.call('GET', '/healthz')).headers);
  });

  it('are on plain HTTP answers too, but for HSTS, which only HTTPS may set', async () => {
    const refused = await api.callPlain('GET', '/v1/disputes');
    expect(refused.status).toBe(403);
    expect(refused.headers['strict-transport-security']).toBeUndefined();
    expect(refused.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-security-policy': apiPolicy,
    });
  });

  it("are on Bull Board's page, with a policy that lets its own scripts and styles run", async () => {
    const operator = `Basic ${Buffer.from('operator:operator password').toString('base64')}`;
    const page = await get('/admin/queues', { authorization: operator });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const boardPolicy =
      "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data:;" +
      "font-src 'self' data:;object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'";
    expectHardened(page.headers, boardPolicy);
    // Its scripts are its own (script-src 'self'), none inline but the JSON of its settings.
    const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((match) => match[1] ?? '');
    expect(scripts.length).toBeGreaterThan(1);
    for (const attributes of scripts) {
      expect(attributes).toMatch(/ src="static\/js\/[^"]+\.js"| type="application\/json"/);
    }
    const script = /src="(static\/js\/[^"]+\.js)"/.exec(page.text)?.[1];
    const served = await get(`/admin/queues/${script}`, { authorization: operator });
    expect(served.status).toBe(200);
    expectHardened(served.headers, boardPolicy);

    // Without credentials, the board's refusal carries them too.
    const refused = await get('/admin/queues');
    expect(refused.status).toBe(401);
    expectHardened(refused.headers, boardPolicy);
  });

  it("are on a response document, whose policy only forbids framing, so browsers' PDF viewers work", async () => {
    const tenant = await newTenant(api);
    const { dispute } = await submittableDispute(api, tenant);
    const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(201);
    const response = await api.call<{ response_url: string }>('GET', `/v1/disputes/${dispute.id}/response`, {
      key: tenant.key,
    });
    const link = new URL(response.body.response_url);
    const pdf = await get(`${link.pathname}${link.search}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expectHardened(pdf.headers, "frame-ancestors 'none'");
  });
});
