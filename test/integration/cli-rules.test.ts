import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrganisationSettings } from '../../src/features/organisations/organisations.js';
import { listRules, setRules } from '../../src/features/rules/rules.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import {
  type Dispute,
  newTenant,
  orderTemplate,
  readStored,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';

/**
 * `rules set|list` and `org settings`, run as an operator runs them: a separate process on the same
 * database as a running API, which must see a settings change at once (its key cache is invalidated).
 */

let api: TestApi;
let tenant: Tenant;
let template: string;
let scratch: string;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  template = await orderTemplate(api, tenant.key);
  scratch = await mkdtemp(join(tmpdir(), 'rebuttal-cli-rules-'));
});
afterAll(async () => {
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  runCli(args, {
    DATABASE_URL: api.db.url,
    REDIS_URL: api.config.REDIS_URL,
    QUEUE_PREFIX: api.config.QUEUE_PREFIX,
    APP_SECRET: 'cli-rules-test-secret-of-at-least-32-chars',
    DUE_SOON_HOURS: '48',
  });

let files = 0;
async function ruleFile(contents: unknown): Promise<string> {
  files += 1;
  const path = join(scratch, `rules-${files}.json`);
  await writeFile(path, typeof contents === 'string' ? contents : JSON.stringify(contents, null, 2));
  return path;
}

const set = async (contents: unknown, org = tenant.org, mode = 'test') =>
  cli(['rules', 'set', '--org', org, '--mode', mode, '--file', await ruleFile(contents), '--json']);
const list = async (org = tenant.org, mode = 'test') =>
  JSON.parse((await cli(['rules', 'list', '--org', org, '--mode', mode, '--json'])).stdout);

const goodRules = () => ({
  rules: [
    { name: 'High value review', when: { amount: { min: 100_000 } }, action: 'review' },
    {
      name: 'Small fraud',
      when: { reason: 'fraudulent', amount: { max: 1000 }, currency: 'USD' },
      action: 'accept',
    },
    {
      name: 'Fraud template',
      when: { reason: ['fraudulent', 'unrecognized'] },
      action: 'template',
      template,
    },
  ],
});

describe('npm run cli -- rules', () => {
  it('set replaces the rules from a file; list prints them, in order, as a file set takes back', async () => {
    const saved = await set(goodRules());
    expect(saved, saved.stderr).toMatchObject({ code: 0, stderr: '' });
    const expected = [
      { order: 1, name: 'High value review', when: { amount: { min: 100_000 } }, action: 'review' },
      {
        order: 2,
        name: 'Small fraud',
        when: { reason: ['fraudulent'], amount: { max: 1000 }, currency: ['usd'] },
        action: 'accept',
      },
      {
        order: 3,
        name: 'Fraud template',
        when: { reason: ['fraudulent', 'unrecognized'] },
        action: 'template',
        template,
      },
    ];
    expect(JSON.parse(saved.stdout)).toEqual(expected);
    expect(await list()).toEqual(expected);
    // Live mode has rules of its own: none yet.
    expect(await list(tenant.org, 'live')).toEqual([]);

    // What list prints, set takes back unchanged.
    const again = await set(await list());
    expect(JSON.parse(again.stdout)).toEqual(expected);
  });

  it('prints tables for people', { timeout: 120_000 }, async () => {
    await set(goodRules());
    const listed = await cli(['rules', 'list', '--org', tenant.org, '--mode', 'test']);
    expect(listed.stdout.split('\n').slice(0, 4)).toEqual([
      expect.stringMatching(/^order +name +action +template +when$/),
      expect.stringMatching(/^1 +High value review +review +amount 100000\.\.$/),
      expect.stringMatching(/^2 +Small fraud +accept +reason fraudulent; currency usd; amount \.\.1000$/),
      expect.stringMatching(
        new RegExp(`^3 +Fraud template +template +${template} +reason fraudulent, unrecognized$`),
      ),
    ]);
    const live = await cli([
      'rules',
      'set',
      '--org',
      tenant.org,
      '--mode',
      'live',
      '--file',
      await ruleFile([{ when: {}, action: 'accept' }]),
    ]);
    expect(live.stdout).toMatch(new RegExp(`^1 rule now in force for ${tenant.org} \\(live\\)\\n`));
    expect(live.stdout).toContain('every dispute');
    expect((await cli(['rules', 'list', '--org', tenant.org, '--mode', 'test', '--json'])).code).toBe(0);
    await set([], tenant.org, 'live');
    expect((await cli(['rules', 'list', '--org', tenant.org, '--mode', 'live'])).stdout).toBe(
      `no rules for ${tenant.org} (live)\n`,
    );
  });

  it.each([
    [
      'a bad condition',
      [
        { when: {}, action: 'accept' },
        { name: 'High value review', when: { amount: { min: '1k' } }, action: 'review' },
      ],
      'error: rule 2 ("High value review"): when.amount.min must be an integer',
    ],
    [
      'an unknown action',
      { rules: [{ name: 'X', when: {}, action: 'refund' }] },
      'error: rule 1 ("X"): action must be an action',
    ],
    [
      'a template that does not exist',
      [{ name: 'Missing', when: {}, action: 'template', template: 'tpl_gone' }],
      'error: rule 1 ("Missing"): template "tpl_gone" does not exist in test mode',
    ],
    ['text that is not JSON', '{"rules": [', 'error: rule file: not valid JSON'],
  ])(
    'refuses %s with one line naming the rule, and the previous rules stay in force',
    async (_, contents, message) => {
      // Set and read in-process: the CLI's own set and list are tested above.
      const tenantRules = { org: tenant.org, mode: 'test' } as const;
      await setRules(api.db.db, { ...tenantRules, contents: JSON.stringify(goodRules()) });
      const before = await listRules(api.db.db, tenantRules);
      const refused = await set(contents);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.startsWith(message), refused.stderr).toBe(true);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(await listRules(api.db.db, tenantRules)).toEqual(before);
    },
  );

  it('refuses a template of the other mode', async () => {
    const refused = await set([{ when: {}, action: 'template', template }], tenant.org, 'live');
    expect(refused.stderr).toBe(`error: rule 1: template "${template}" does not exist in live mode\n`);
  });

  it('refuses an unknown organisation', async () => {
    const refused = await set([], 'org_missing');
    expect(refused).toMatchObject({ code: 1, stderr: 'error: no organisation org_missing\n' });
  });
});

describe('npm run cli -- org settings', () => {
  const settings = async (...args: string[]) => cli(['org', 'settings', '--org', tenant.org, ...args]);
  const json = async (...args: string[]) => {
    const result = await settings(...args, '--json');
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout);
  };

  it('shows the settings, changes them, and removes a default template with `<reason>=`', {
    timeout: 120_000,
  }, async () => {
    expect(await json()).toEqual({
      org: tenant.org,
      name: 'Test Org',
      api_version: '2021-09-15',
      queue_lead_hours: 24,
      due_soon_hours: null,
      default_templates: { test: {}, live: {} },
      allowed_origins: [],
      visa_compliance_fee: 'refuse',
      alert_refund_up_to: { test: {}, live: {} },
    });
    expect(
      await json(
        '--queue-lead-hours',
        '36',
        '--due-soon-hours',
        '72',
        '--mode',
        'test',
        '--default-template',
        `fraudulent=${template}`,
        '--default-template',
        `general=${template}`,
        '--default-template',
        `amex:f29=${template}`,
      ),
    ).toMatchObject({
      queue_lead_hours: 36,
      due_soon_hours: 72,
      default_templates: {
        test: { fraudulent: template, general: template, 'amex:F29': template },
        live: {},
      },
    });
    const human = await settings();
    expect(human.stdout).toBe(
      [
        `organisation ${tenant.org} (Test Org)`,
        'setting              value',
        'api version          2021-09-15',
        'queue lead           36 hours',
        'due-soon window      72 hours',
        'visa compliance fee  refuse',
        'default templates:',
        'mode  for         template',
        `test  amex:F29    ${template}`,
        `test  fraudulent  ${template}`,
        `test  general     ${template}`,
        'allowed origins: none',
        'alert refunds up to: none',
        '',
      ].join('\n'),
    );
    expect(
      await json('--mode', 'test', '--default-template', 'fraudulent=', '--due-soon-hours', 'default'),
    ).toMatchObject({
      due_soon_hours: null,
      default_templates: { test: { general: template, 'amex:F29': template }, live: {} },
    });
    expect((await settings()).stdout).toContain('due-soon window      48 hours (the DUE_SOON_HOURS default)');
  });

  it('sets the visa compliance fee and the alert refund thresholds per mode and currency, and removes them', {
    timeout: 120_000,
  }, async () => {
    const other = await newTenant(api);
    const of = async (...args: string[]) => {
      const result = await cli(['org', 'settings', '--org', other.org, ...args, '--json']);
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(result.stdout);
    };
    expect(
      await of(
        '--visa-compliance-fee',
        'accept',
        '--mode',
        'test',
        '--alert-refund-up-to',
        'USD:5000',
        '--alert-refund-up-to',
        'eur:2500',
      ),
    ).toMatchObject({
      visa_compliance_fee: 'accept',
      alert_refund_up_to: { test: { usd: 5000, eur: 2500 }, live: {} },
    });
    expect(await of('--mode', 'live', '--alert-refund-up-to', 'jpy:0')).toMatchObject({
      alert_refund_up_to: { test: { usd: 5000, eur: 2500 }, live: { jpy: 0 } },
    });
    const human = await cli(['org', 'settings', '--org', other.org]);
    expect(human.stdout).toContain('visa compliance fee  accept');
    expect(human.stdout).toContain(
      [
        'alert refunds up to (minor units):',
        'mode  currency  amount',
        'test  eur       2500',
        'test  usd       5000',
        'live  jpy       0',
      ].join('\n'),
    );
    expect(await of('--mode', 'test', '--alert-refund-up-to', 'usd:none')).toMatchObject({
      alert_refund_up_to: { test: { eur: 2500 }, live: { jpy: 0 } },
    });
    expect(
      await of('--visa-compliance-fee', 'refuse', '--mode', 'live', '--alert-refund-up-to', 'none'),
    ).toMatchObject({ visa_compliance_fee: 'refuse', alert_refund_up_to: { test: { eur: 2500 }, live: {} } });
  });

  it.each([
    [
      ['--api-version', '2019-01-01'],
      'error: api version must be one of 2016-03-05, 2017-10-30, 2020-02-28, 2021-09-15, not "2019-01-01"',
    ],
    [
      ['--queue-lead-hours', '721'],
      'error: queue lead must be a whole number of hours from 0 to 720, not 721',
    ],
    [
      ['--queue-lead-hours', '1.5'],
      'error: queue lead must be a whole number of hours from 0 to 720, not "1.5"',
    ],
    [
      ['--due-soon-hours', '0'],
      'error: due-soon window must be a whole number of hours from 1 to 720, or "default", not 0',
    ],
    [
      ['--default-template', `fraudulent=${'x'}`],
      'error: default templates belong to a mode: give --mode test or --mode live',
    ],
    [
      ['--mode', 'test', '--default-template', 'fraud=x'],
      'error: default template "fraud=x": "fraud" is not a dispute reason',
    ],
    [
      ['--mode', 'test', '--default-template', 'fraudulent'],
      'error: default template must be <reason>=<templateId> or <network>:<code>=<templateId>, not "fraudulent"',
    ],
    [
      ['--mode', 'test', '--default-template', 'maestro:4837=x'],
      'error: default template "maestro:4837=x": "maestro" is not a card network',
    ],
    [['--visa-compliance-fee', 'yes'], 'error: visa compliance fee must be accept or refuse, not "yes"'],
    [
      ['--alert-refund-up-to', 'usd:5000'],
      'error: alert refund thresholds belong to a mode: give --mode test or --mode live',
    ],
    [
      ['--mode', 'test', '--alert-refund-up-to', 'usd:5000', '--alert-refund-up-to', 'xts:1'],
      'error: alert refund threshold "xts:1": "xts" is not a known currency',
    ],
    [
      ['--mode', 'test', '--alert-refund-up-to', 'usd:-5'],
      'error: alert refund threshold "usd:-5": the amount must be a whole number of minor units from 0 to 1000000000000, or none',
    ],
    [
      ['--mode', 'live', '--default-template', `fraudulent=${template}`],
      `error: default template for fraudulent: template "${template}" does not exist in live mode`,
    ],
  ])('refuses %j and changes nothing', async (args, message) => {
    const before = await getOrganisationSettings(api.db.db, tenant.org);
    const refused = await settings(...args);
    expect(refused.code).toBe(1);
    expect(refused.stderr.startsWith(message), refused.stderr).toBe(true);
    expect(await getOrganisationSettings(api.db.db, tenant.org)).toEqual(before);
  });

  it('a change of api version or queue lead is seen by the next API request, not after the key cache expires', async () => {
    const other = await newTenant(api);
    const ask = () => api.call('GET', '/v1/disputes', { key: other.key });
    // The key is resolved and cached (for 30 s in these tests) with the organisation's settings.
    expect((await ask()).headers['service-version']).toBe('2021-09-15');

    const changed = await cli([
      'org',
      'settings',
      '--org',
      other.org,
      '--api-version',
      '2017-10-30',
      '--queue-lead-hours',
      '72',
    ]);
    expect(changed, changed.stderr).toMatchObject({ code: 0 });
    // The invalidation reaches this process by a Postgres notification, moments after the commit.
    await expect
      .poll(async () => (await ask()).headers['service-version'], { timeout: 2000 })
      .toBe('2017-10-30');

    const { dispute } = await submittableDispute(api, other);
    const queued = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: other.key,
      json: { queue: true },
    });
    expect(queued.status, queued.text).toBe(200);
    const stored = await readStored(api, other, dispute.id);
    expect((stored.dueBy?.getTime() ?? 0) - (stored.submitAt?.getTime() ?? 0)).toBe(72 * 3_600_000);
  });
});
