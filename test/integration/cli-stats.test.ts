import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { cliOf } from '../helpers/cli.js';
import { newTenant, type Tenant } from '../helpers/disputes.js';
import { seedStatsFixtures, statsRangeQuery } from '../helpers/stats.js';
import { seedPreventionFixtures } from '../helpers/stats-prevention.js';

/**
 * `stats` (docs/operations.md, "Commands"), run as an operator runs it: a separate process on a service's
 * database, printing the numbers `GET /v1/stats/disputes` answers for the hand-counted disputes of
 * test/helpers/stats.ts.
 */

let api: TestApi;
let tenant: Tenant;
/** An organisation of the prevention fixtures (test/helpers/stats-prevention.ts). */
let prevention: string;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  const other = await newTenant(api);
  await seedStatsFixtures(api.db.db, tenant.org, other.org);
  prevention = (await newTenant(api)).org;
  await seedPreventionFixtures(api.db.db, prevention, other.org);
});
afterAll(async () => {
  await api.close();
});

const range = ['--from', statsRangeQuery.from, '--to', statsRangeQuery.to];
const stats = (...args: string[]) => cliOf(api)('stats', '--org', tenant.org, '--mode', 'test', ...args);

describe('npm run cli -- stats', () => {
  it('--json prints exactly what the API answers', async () => {
    const printed = await stats(...range, '--group-by', 'reason', '--group-by', 'network', '--json');
    expect(printed, printed.stderr).toMatchObject({ code: 0, stderr: '' });
    const answer = await api.call('GET', '/v1/stats/disputes', {
      key: tenant.key,
      query: { ...statsRangeQuery, group_by: ['reason', 'network'] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(printed.stdout)).toEqual(answer.body);
  });

  it('prints a table: one row per group and currency, amounts in major units', async () => {
    const printed = await stats(...range, '--group-by', 'reason');
    expect(printed, printed.stderr).toMatchObject({ code: 0, stderr: '' });
    const [disputes = '', alerts] = printed.stdout.trimEnd().split('\n\n');
    const [title, ...lines] = disputes.split('\n');
    expect(title).toBe(
      `3 groups of ${tenant.org} (test) disputed from 2026-01-01T00:00:00 to 2026-04-01T00:00:00 UTC`,
    );
    expect(lines.map((line) => line.trim().split(/ {2,}/))).toEqual([
      ['reason', 'disputes', 'won', 'lost', 'accepted', 'open', 'closed', 'prevented', 'win rate'].concat([
        'submitted',
        'median to submit',
        'visa fraud',
        'ce qualified',
        'win rate qualified / not',
        'amount disputed',
        'amount won',
        'amount lost',
      ]),
      ['fraudulent', '5', '2', '2', '1', '0', '0', '0', '50.0%', '3', '2d 0h', '2', '0 (0.0%)'].concat([
        '- / -',
        '37.00 EUR',
        '5.00 EUR',
        '25.00 EUR',
      ]),
      ['30.00 USD', '10.00 USD', '20.00 USD'],
      ['general', '1', '0', '0', '0', '0', '1', '0', '-', '0', '-', '0', '0 (-)', '- / -'].concat([
        '5000 JPY',
        '0 JPY',
        '0 JPY',
      ]),
      ['product_not_received', '3', '1', '0', '0', '2', '0', '0', '100.0%', '2', '2m 31s', '0'].concat([
        '0 (-)',
        '- / -',
        '13.00 USD',
        '6.00 USD',
        '0.00 USD',
      ]),
    ]);
    expect(alerts).toBe(
      `no alerts of ${tenant.org} (test) created from 2026-01-01T00:00:00 to 2026-04-01T00:00:00 UTC`,
    );
  });

  it('prints prevented disputes, CE 3.0 verdicts, and the alerts in a table of their own', async () => {
    const printed = await cliOf(api)(
      'stats',
      '--org',
      prevention,
      '--mode',
      'test',
      ...range,
      '--group-by',
      'processor',
    );
    expect(printed, printed.stderr).toMatchObject({ code: 0, stderr: '' });
    const [disputes = '', alerts = ''] = printed.stdout.trimEnd().split('\n\n');
    const cells = (part: string) =>
      part
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/ {2,}/));
    expect(cells(disputes).slice(1)).toEqual([
      ['braintree', '3', '0', '1', '0', '0', '0', '2', '0.0%', '0', '-', '3', '0 (0.0%)', '- / 0.0%'].concat([
        '3.00 USD',
        '0.00 USD',
        '1.00 USD',
      ]),
      [
        'stripe',
        '9',
        '4',
        '2',
        '0',
        '1',
        '1',
        '1',
        '66.7%',
        '0',
        '-',
        '5',
        '2 (40.0%)',
        '50.0% / 50.0%',
      ].concat(['9.00 USD', '4.00 USD', '2.00 USD']),
    ]);
    expect(alerts.split('\n')[0]).toBe(
      `2 alert groups of ${prevention} (test) created from 2026-01-01T00:00:00 to 2026-04-01T00:00:00 UTC`,
    );
    expect(cells(alerts)).toEqual([
      ['processor', 'alerts', 'refunded', 'followed by dispute', 'amount refunded'],
      ['adyen', '2', '1', '1', '3.00 EUR'],
      ['stripe', '4', '2', '1', '12.00 USD'],
    ]);
  });

  it('counts the mode asked for, and says when there is nothing', async () => {
    const [live, none] = await Promise.all([
      stats('--mode', 'live', ...range, '--json'),
      stats('--from', '2020-01-01', '--to', '2020-02-01', '--group-by', 'month'),
    ]);
    expect(JSON.parse(live.stdout)).toMatchObject({
      livemode: true,
      groups: [{ count: 8, won: 3, lost: 1 }],
    });
    expect(none.stdout.trim().split('\n')).toEqual([
      `no disputes of ${tenant.org} (test) disputed from 2020-01-01T00:00:00 to 2020-02-01T00:00:00 UTC`,
      '',
      `no alerts of ${tenant.org} (test) created from 2020-01-01T00:00:00 to 2020-02-01T00:00:00 UTC`,
    ]);
  });

  it('refuses what the API refuses, in its words, with one line and exit code 1', async () => {
    // The API's tests go through every refusal; two show that the CLI reads its options with the same rules.
    const cases: [string[], string][] = [
      [
        ['--group-by', 'colour'],
        'Invalid group_by.0: "colour" is not one of reason, processor, template, network, month.',
      ],
      [['--from', '2026-03-01', '--to', '2026-02-01'], 'Invalid from: must not be after to.'],
    ];
    const [refusals, unknown] = await Promise.all([
      Promise.all(cases.map(([args]) => stats(...args))),
      cliOf(api)('stats', '--org', 'org_nope', '--mode', 'test'),
    ]);
    expect(refusals.map(({ code, stdout, stderr }) => [code, stdout, stderr])).toEqual(
      cases.map(([, message]) => [1, '', `error: ${message}\n`]),
    );
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error: no organisation org_nope\n']);
  });
});
