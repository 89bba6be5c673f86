import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** Bull Board's sign-in: repeated wrong operator credentials from one address are refused outright. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    workers: [],
    env: { ADMIN_USER: 'operator', ADMIN_PASSWORD: 'the right password' },
  });
});
afterAll(async () => {
  await api.close();
});

const basic = (credentials: string) => ({
  authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
});
const board = (headers: Record<string, string> = {}) =>
  api.call('GET', '/admin/queues/api/queues', { headers });

describe('Bull Board sign-in', () => {
  it('answers 401 to wrong guesses, then 429 to the address, even with the right credentials', async () => {
    expect((await board(basic('operator:the right password'))).status).toBe(200);
    // Requests without credentials (a browser asking for the prompt) are not guesses.
    for (let n = 0; n < 12; n++) expect((await board()).status).toBe(401);
    expect((await board(basic('operator:the right password'))).status).toBe(200);

    for (let n = 0; n < 10; n++) {
      expect((await board(basic(`operator:guess ${n}`))).body).toEqual({
        error: { status: 401, type: 'authentication', message: 'Operator credentials are required.' },
      });
    }
    const refused = await board(basic('operator:the right password'));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('300');
    expect(refused.body).toEqual({
      error: {
        status: 429,
        type: 'rate_limited',
        message: 'Too many wrong operator credentials from this address; try again later.',
      },
    });
  });
});
