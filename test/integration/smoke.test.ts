import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { emptyDisputeList } from '../helpers/disputes.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

describe('the API over HTTPS', () => {
  it('lists no disputes for a new organisation', async () => {
    const org = await api.createOrg();
    const response = await api.call('GET', '/v1/disputes', { key: org.test_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(emptyDisputeList);
  });

  it('refuses a request over plain HTTP with 403 insecure_connection', async () => {
    const org = await api.createOrg();
    const response = await api.callPlain('GET', '/v1/disputes', { key: org.test_key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      url: '/v1/disputes',
      livemode: false,
      error: { status: 403, type: 'insecure_connection', message: 'Requests must be made over HTTPS.' },
    });
  });
});
