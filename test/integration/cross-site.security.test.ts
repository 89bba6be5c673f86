import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrganisationSettings } from '../../src/features/organisations/organisations.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { type CliResult, cliOf } from '../helpers/cli.js';
import { newTenant, type Tenant } from '../helpers/disputes.js';
import { snapshotTables } from '../helpers/security.js';

/**
 * A page of another site can make a browser post a form to the API with Basic credentials it remembers.
 * Requests carrying an `Origin` of another site are refused (src/api/middleware/origin.ts) unless the
 * organisation allows that site (`org settings --allowed-origin`); servers send no `Origin` and pass.
 */
let api: TestApi;
let tenant: Tenant;
let cli: (...args: string[]) => Promise<CliResult>;
beforeAll(async () => {
  api = await startTestApi({ workers: [], env: { PUBLIC_URL: 'https://disputes.example.com' } });
  tenant = await newTenant(api);
  cli = cliOf(api);
});
afterAll(async () => {
  await api.close();
});

const shop = 'https://shop.example.com';
/** A form post making a test dispute, as a page's `<form method=post>` sends it. */
const formPost = (key: string, origin?: string) =>
  api.call('POST', '/v1/test/disputes', {
    key,
    form: 'reason=fraudulent',
    headers: origin === undefined ? {} : { origin },
  });
const refusal = (origin: string) => ({
  url: '/v1/test/disputes',
  livemode: false,
  error: {
    status: 400,
    type: 'invalid_request',
    message: `Requests from another site are refused: Origin "${origin}" is not allowed for this organisation.`,
  },
});
async function orgSettings(...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli('org', 'settings', '--org', tenant.org, ...args, '--json');
  expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
}

describe('requests from another site', () => {
  it.each([shop, 'http://disputes.example.com', 'https://disputes.example.com:8443', 'null'])(
    'are refused with Origin: %s, and change nothing',
    async (origin) => {
      const before = await snapshotTables(api.db.sql);
      const refused = await formPost(tenant.key, origin);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(refusal(origin));
      expect(await snapshotTables(api.db.sql)).toEqual(before);
    },
  );

  it('pass without Origin (a server), and from the service itself: PUBLIC_URL, or the host addressed', async () => {
    expect((await formPost(tenant.key)).status).toBe(201);
    expect((await formPost(tenant.key, 'https://disputes.example.com')).status).toBe(201);
    expect((await formPost(tenant.key, api.origin)).status).toBe(201);
  });

  it('pass from a site the organisation allows (org settings --allowed-origin), and only for it', {
    timeout: 60_000,
  }, async () => {
    expect(
      await orgSettings('--allowed-origin', `${shop}/`, '--allowed-origin', 'https://Admin.Example.com:443'),
    ).toMatchObject({
      allowed_origins: [shop, 'https://admin.example.com'],
    });
    expect((await formPost(tenant.key, shop)).status).toBe(201);
    expect((await formPost(tenant.key, 'https://admin.example.com')).status).toBe(201);
    expect((await formPost(tenant.key, 'https://evil.example.com')).body).toEqual(
      refusal('https://evil.example.com'),
    );
    // Another organisation has not allowed it.
    const other = await newTenant(api);
    expect((await formPost(other.key, shop)).body).toEqual(refusal(shop));

    expect(await orgSettings('--remove-allowed-origin', shop)).toMatchObject({
      allowed_origins: ['https://admin.example.com'],
    });
    expect((await formPost(tenant.key, shop)).body).toEqual(refusal(shop));
  });

  it('org settings refuses an allowed origin that is not one, and changes nothing', async () => {
    const before = await getOrganisationSettings(api.db.db, tenant.org);
    const refused = await cli('org', 'settings', '--org', tenant.org, '--allowed-origin', 'shop.example.com');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error: allowed origin must be a scheme, host and optional port, as https://shop.example.com, not "shop.example.com"\n',
    );
    expect(await getOrganisationSettings(api.db.db, tenant.org)).toEqual(before);
  }, 60_000);
});
