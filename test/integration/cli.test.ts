import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

/** The CLI against this file's database. */
const cli = (...args: string[]) => runCli(args, { DATABASE_URL: api.db.url });

describe('npm run cli -- org create', () => {
  it('prints the organisation and its two keys as JSON, and the keys work in their modes', async () => {
    const { stdout, code } = await cli('org', 'create', '--name', 'Acme', '--json');
    expect(code).toBe(0);
    const created = JSON.parse(stdout) as Record<string, string>;
    expect(Object.keys(created).sort()).toEqual(['live_key', 'org', 'test_key']);
    expect(created.org).toMatch(/^org_[0-9a-z]{20}$/);
    expect(created.test_key).toMatch(/^test_[A-Za-z0-9_-]{43}$/);
    expect(created.live_key).toMatch(/^live_[A-Za-z0-9_-]{43}$/);

    const test = await api.call('GET', '/v1/disputes', { key: created.test_key });
    const live = await api.call('GET', '/v1/disputes', { key: created.live_key });
    expect([test.status, test.body.livemode]).toEqual([200, false]);
    expect([live.status, live.body.livemode]).toEqual([200, true]);
  });

  it('refuses a missing --name with a non-zero exit and one line on stderr', async () => {
    const { code, stderr } = await cli('org', 'create', '--json');
    expect(code).not.toBe(0);
    expect(stderr).toContain("required option '--name <name>' not specified");
  });
});

describe('npm run cli -- key rotate', () => {
  it('prints a new key that works, and the old key stops working at once in the running API', async () => {
    const created = JSON.parse((await cli('org', 'create', '--name', 'Rotating', '--json')).stdout) as Record<
      string,
      string
    >;
    // Warm the API's key cache with the old key: rotation must still take effect at once.
    expect((await api.call('GET', '/v1/disputes', { key: created.test_key })).status).toBe(200);

    const { stdout, code } = await cli(
      'key',
      'rotate',
      '--org',
      created.org ?? '',
      '--mode',
      'test',
      '--json',
    );
    expect(code).toBe(0);
    const rotated = JSON.parse(stdout) as Record<string, string>;
    expect(rotated).toEqual({
      org: created.org,
      mode: 'test',
      test_key: expect.stringMatching(/^test_/),
      previous_key_expires: null,
    });

    // The notification travels from the CLI process through Postgres to the API's listener.
    await expect
      .poll(async () => (await api.call('GET', '/v1/disputes', { key: created.test_key })).status, {
        timeout: 5000,
      })
      .toBe(401);
    expect((await api.call('GET', '/v1/disputes', { key: rotated.test_key })).status).toBe(200);
    expect((await api.call('GET', '/v1/disputes', { key: created.live_key })).status).toBe(200);
  });

  it('fails with a one-line reason for an unknown organisation', async () => {
    const { code, stderr } = await cli('key', 'rotate', '--org', 'org_nope', '--mode', 'live', '--json');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('error: no organisation org_nope');
  });
});
