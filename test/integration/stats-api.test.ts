import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, type Tenant } from '../helpers/disputes.js';
import { readOpenApiDocument, resolve } from '../helpers/openapi.js';
import { snapshotTables } from '../helpers/security.js';
import { expectedByReason, expectedTotal, seedStatsFixtures, statsRangeQuery } from '../helpers/stats.js';
import {
  expectedAlertsByProcessor,
  expectedPreventionByProcessor,
  seedPreventionFixtures,
} from '../helpers/stats-prevention.js';

/**
 * GET /v1/stats/disputes (docs/api.md, "Statistics"): the answer over hand-counted disputes
 * (test/helpers/stats.ts), its CSV form, and the parameters it refuses, with their exact bodies.
 */

let api: TestApi;
let tenant: Tenant;
let other: Tenant;
/** A tenant of the prevention fixtures (test/helpers/stats-prevention.ts), its copies in another. */
let prevention: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  other = await newTenant(api);
  prevention = await newTenant(api);
  await seedStatsFixtures(api.db.db, tenant.org, other.org);
  await seedPreventionFixtures(api.db.db, prevention.org, (await newTenant(api)).org);
});
afterAll(async () => {
  await api.close();
});

const path = '/v1/stats/disputes';
const stats = (query: string, headers: Record<string, string> = {}, key = tenant.key) =>
  api.call('GET', path, { key, query, headers });
const range = `from=${statsRangeQuery.from}&to=${statsRangeQuery.to}`;

describe('GET /v1/stats/disputes', () => {
  it('answers the dispute_stats object of the range, grouped by reason', async () => {
    const response = await stats(`${range}&group_by=reason`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({
      object: 'dispute_stats',
      from: '2026-01-01T00:00:00',
      to: '2026-04-01T00:00:00',
      group_by: ['reason'],
      groups: expectedByReason,
      has_more: false,
      alerts: {
        group_by: [],
        groups: [{ group: {}, count: 0, refunded: 0, refunded_amounts: {}, followed_by_dispute: 0 }],
        has_more: false,
      },
      livemode: false,
      url: path,
    });
  });

  it('takes from and to as Unix seconds, group_by repeated or as group_by[], and none at all', async () => {
    const seconds = 'from=1767225600&to=1775001600';
    const repeated = await stats(`${seconds}&group_by=reason&group_by=month`);
    const bracketed = await stats(`${range}&group_by[]=reason&group_by[]=month`);
    expect(repeated.status, repeated.text).toBe(200);
    expect(repeated.body).toEqual(bracketed.body);
    expect(repeated.body).toMatchObject({ group_by: ['reason', 'month'], from: '2026-01-01T00:00:00' });
    expect((repeated.body.groups as unknown[]).length).toBe(6);
    const total = await stats(range);
    expect(total.body).toMatchObject({ group_by: [], groups: [expectedTotal] });
  });

  it("counts only the key's organisation and mode", async () => {
    // The other organisation holds copies of a1-a8 in test mode, the tenant's live mode another set.
    for (const key of [other.key, tenant.live_key]) {
      const response = await stats(range, {}, key);
      expect(response.body.groups, key).toEqual([expect.objectContaining({ count: 8, won: 3, lost: 1 })]);
      expect(response.body.livemode).toBe(key === tenant.live_key);
    }
  });

  it('answers CSV to Accept: text/csv, a template id that starts like a formula made text', async () => {
    const response = await stats(`${range}&group_by=template`, { accept: 'text/csv' });
    expect(response.status, response.text).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition': 'attachment; filename="dispute-stats.csv"',
      'x-has-more': 'false',
      vary: 'Accept',
    });
    // No alert columns: alerts have no template (see the prevention fixtures' test for them).
    expect(response.text.split('\r\n')).toEqual([
      'template,count,won,lost,accepted,open,closed_otherwise,prevented,prevented_rdr,prevented_alert_refund,' +
        'win_rate,submitted,median_seconds_to_submission,ce_visa_fraud,ce_qualified,ce_requires_action,' +
        'ce_not_qualified,ce_not_submitted,ce_qualified_share,ce_win_rate_qualified,ce_win_rate_not_qualified,' +
        'amount_disputed_eur,amount_won_eur,amount_lost_eur,amount_disputed_jpy,amount_won_jpy,amount_lost_jpy,' +
        'amount_disputed_usd,amount_won_usd,amount_lost_usd',
      "'-tpl,1,1,0,0,0,0,0,0,0,1,1,201,0,0,0,0,0,,,,0,0,0,0,0,0,600,600,0",
      'tpl_a,4,1,1,0,2,0,0,0,0,0.5,3,86400,2,0,0,0,2,0,,,0,0,0,0,0,0,3700,1000,2000',
      'tpl_b,1,1,0,0,0,0,0,0,0,1,1,172800,0,0,0,0,0,,,,500,500,0,0,0,0,0,0,0',
      ',3,0,1,1,0,1,0,0,0,0,0,,0,0,0,0,0,,,,3200,0,2500,5000,0,0,0,0,0',
      '',
    ]);
  });

  it('answers prevented disputes, CE 3.0 verdicts and alerts, in JSON and in CSV', async () => {
    const json = await stats(`${range}&group_by=processor`, {}, prevention.key);
    expect(json.status, json.text).toBe(200);
    expect(json.body).toMatchObject({
      groups: expectedPreventionByProcessor,
      alerts: { group_by: ['processor'], groups: expectedAlertsByProcessor, has_more: false },
    });
    // Grouped alike, the alerts sit beside the disputes; adyen has alerts and no disputes: a row of its own.
    const csv = await stats(`${range}&group_by=processor`, { accept: 'text/csv' }, prevention.key);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers['x-has-more']).toBe('false');
    expect(csv.text.split('\r\n')).toEqual([
      'processor,count,won,lost,accepted,open,closed_otherwise,prevented,prevented_rdr,prevented_alert_refund,' +
        'win_rate,submitted,median_seconds_to_submission,ce_visa_fraud,ce_qualified,ce_requires_action,' +
        'ce_not_qualified,ce_not_submitted,ce_qualified_share,ce_win_rate_qualified,ce_win_rate_not_qualified,' +
        'amount_disputed_usd,amount_won_usd,amount_lost_usd,alerts,alerts_refunded,alerts_followed_by_dispute,' +
        'alerts_refunded_amount_eur,alerts_refunded_amount_usd',
      'adyen,0,0,0,0,0,0,0,0,0,,0,,0,0,0,0,0,,,,0,0,0,2,1,1,300,0',
      'braintree,3,0,1,0,0,0,2,2,0,0,0,,3,0,0,1,2,0,,0,300,0,100,0,0,0,0,0',
      `stripe,9,4,2,0,1,1,1,0,1,${4 / 6},0,,5,2,1,1,1,0.4,0.5,0.5,900,400,200,4,2,1,0,1200`,
      '',
    ]);
  });

  it('answers JSON unless the request prefers CSV', async () => {
    for (const accept of ['*/*', 'application/json', 'text/csv;q=0.5, application/json', 'text/html']) {
      const response = await stats(range, { accept });
      expect(response.headers['content-type'], accept).toBe('application/json; charset=utf-8');
      // Either form of the same URL says it depends on Accept, so that no cache serves one for the other.
      expect(response.headers.vary, accept).toBe('Accept');
      expect(response.body, accept).toMatchObject({ object: 'dispute_stats' });
    }
    const csv = await stats(range, { accept: 'application/json;q=0.1, text/csv' });
    // Without group_by, alerts are grouped alike (one group): their columns follow, none of them here.
    expect(csv.text.split('\r\n')[1]).toBe(
      '9,3,2,1,2,1,0,0,0,0.6,5,86400,2,0,0,0,2,0,,,3700,500,2500,5000,0,0,4300,1600,2000,0,0,0',
    );
  });

  it('refuses bad parameters with 400 invalid_request naming the parameter, in JSON even to a CSV request', async () => {
    const before = await snapshotTables(api.db.sql);
    const cases: [string, string][] = [
      [
        'group_by=colour',
        'Invalid group_by.0: "colour" is not one of reason, processor, template, network, month.',
      ],
      [
        'group_by=reason&group_by=Month',
        'Invalid group_by.1: "Month" is not one of reason, processor, template, network, month.',
      ],
      ['group_by=reason&group_by=month&group_by=network', 'Invalid group_by: takes at most two values.'],
      ['group_by=reason&group_by=reason', 'Invalid group_by: must not name a value twice.'],
      ['group_by[reason]=1', 'Invalid group_by: Invalid input: expected array, received object.'],
      ['from=2026-02-31', 'Invalid from: must be an ISO 8601 timestamp or Unix seconds.'],
      ['to=yesterday', 'Invalid to: must be an ISO 8601 timestamp or Unix seconds.'],
      ['from=2026-03-01&to=2026-02-01', 'Invalid from: must not be after to.'],
      ['from=9000-01-01', 'Invalid from: must not be after to (now, when to is not given).'],
      ['from=2020-12-31T23:59:59Z&to=2026-01-01', 'Invalid from: must be at most 5 years before to.'],
    ];
    for (const [query, message] of cases) {
      for (const accept of ['application/json', 'text/csv']) {
        const response = await stats(query, { accept });
        expect({ status: response.status, body: response.body }, `${query} (${accept})`).toEqual({
          status: 400,
          body: { url: path, livemode: false, error: { status: 400, type: 'invalid_request', message } },
        });
      }
    }
    // Five years to the second is the longest range.
    expect((await stats('from=2021-01-01&to=2026-01-01')).status).toBe(200);
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('answers any query string 200 or 400 invalid_request naming a parameter, never a fault', async () => {
    const value = fc.oneof(
      fc.constantFrom(
        'reason',
        'month',
        'template',
        '2026-01-01',
        '1767225600',
        '-1',
        '9999-12-31T23:59:59Z',
      ),
      fc.string(),
    );
    const parameter = fc.constantFrom('from', 'to', 'group_by', 'group_by[]', 'group_by[0]', 'group_by[x]');
    const pairs = fc.array(fc.tuple(parameter, value), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(pairs, async (sent) => {
        const query = sent.map(([name, text]) => `${name}=${encodeURIComponent(text)}`).join('&');
        const response = await stats(query);
        if (response.status === 200) {
          expect(response.body).toMatchObject({ object: 'dispute_stats' });
          return;
        }
        expect(response.status, `${query}: ${response.text}`).toBe(400);
        expect(response.body.error, query).toMatchObject({
          type: 'invalid_request',
          message: expect.stringMatching(/^Invalid (from|to|group_by)\b/),
        });
      }),
      { numRuns: 60, seed: 19 },
    );
  });

  it('waits for the database longer than a page does: years of disputes are read whole', async () => {
    let locked = () => {};
    let release = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = api.db.sql.begin(async (tx) => {
      await tx`lock table disputes in access exclusive mode`;
      locked();
      await released;
    });
    await isLocked;
    const started = Date.now();
    const counting = stats(`${range}&group_by=reason`);
    // A list gives up after its 1.5 s; the statistics wait on past it, until the table is free.
    const list = await api.call('GET', '/v1/disputes', { key: tenant.key });
    expect(list.status, list.text).toBe(503);
    release();
    await holding;
    const answer = await counting;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.groups).toEqual(expectedByReason);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });

  it('is documented as the DisputeStats object, or CSV', async () => {
    const document = await readOpenApiDocument(api);
    const content = document.paths[path]?.get?.responses['200']?.content ?? {};
    expect(Object.keys(content)).toEqual(['application/json', 'text/csv']);
    const schema = resolve(document, content['application/json']?.schema ?? {});
    expect(schema.required).toEqual([
      'object',
      'from',
      'to',
      'group_by',
      'groups',
      'has_more',
      'alerts',
      'livemode',
      'url',
    ]);
    const group = resolve(document, schema.properties?.groups?.items ?? {});
    expect(Object.keys(group.properties ?? {})).toEqual(Object.keys(expectedTotal));
    const ce = resolve(document, group.properties?.compelling_evidence ?? {});
    expect(Object.keys(ce.properties ?? {})).toEqual(Object.keys(expectedTotal.compelling_evidence));
    const alerts = resolve(document, schema.properties?.alerts ?? {});
    const alertGroup = resolve(document, alerts.properties?.groups?.items ?? {});
    expect(Object.keys(alertGroup.properties ?? {})).toEqual(Object.keys(expectedAlertsByProcessor[0] ?? {}));
  });

  it('has a budget of its own per key, RATE_LIMIT_STATS_PER_MINUTE, beside the request limit', async () => {
    const limited = await startTestApi({ workers: [], env: { RATE_LIMIT_STATS_PER_MINUTE: '2' } });
    try {
      const [busy, calm] = [await limited.createOrg(), await limited.createOrg()];
      const count = (key: string) => limited.call('GET', path, { key });
      expect([(await count(busy.test_key)).status, (await count(busy.test_key)).status]).toEqual([200, 200]);
      const refused = await count(busy.test_key);
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 429,
        body: {
          url: path,
          livemode: false,
          error: {
            status: 429,
            type: 'rate_limited',
            message: 'Too many statistics requests: at most 2 a minute.',
          },
        },
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // The key's other calls go on, and other keys have budgets of their own.
      expect((await limited.call('GET', '/v1/disputes', { key: busy.test_key })).status).toBe(200);
      expect((await count(busy.live_key)).status).toBe(200);
      expect((await count(calm.test_key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('is GET only, and needs a key', async () => {
    const post = await api.call('POST', path, { key: tenant.key, json: {} });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET']);
    const anonymous = await api.call('GET', path);
    expect(anonymous.status).toBe(401);
  });
});
