import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisputeFilters } from '../../src/features/disputes/filters.js';
import { filteredPage } from '../../src/features/disputes/list.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The plans of the filtered dispute list (docs/architecture.md, "Dispute search"): on a seeded,
 * vacuumed and analysed table of 100,000 disputes of one organisation (and others beside it), every
 * filter alone and the named pairs read disputes through an index, and where an index gives the order the
 * page is cut from it without sorting the tenant. The statement explained is the one the list sends,
 * built by the function it uses.
 */

const tenantRows = 100_000;
let db: TestDatabase;
let org: string;
const day = 86_400_000;
/** The newest dispute's `created`; the i-th is i minutes older. */
const newest = Date.parse('2026-06-01T00:00:00Z');
const daysBefore = (days: number) => new Date(newest - days * day);

/** A per-row pick in 0-999, the same on every run. */
const pick = (salt: number) => `(abs(hashint8(i * 7919 + ${salt})) % 1000)`;

/**
 * Disputes as a busy organisation's look: the newest open, older ones decided; skewed reasons, a few
 * processors, currencies and networks (none on the oldest fifth), a template on three in ten.
 */
const seed = (orgId: string, count: number, livemode: boolean) => `
  insert into disputes (org_id, livemode, id, state, reason, kind, source, processor, account, charged_at,
    disputed_at, due_by, charge, amount, currency, customer, customer_email, network, template, created_at)
  select '${orgId}', ${livemode}, 'dp_' || i,
    case when i <= 3000 then (case when ${pick(1)} < 700 then 'needs_response' when ${pick(1)} < 850
        then 'warning_needs_response' when ${pick(1)} < 990 then 'under_review' else 'queued' end)
      else (case when ${pick(1)} < 450 then 'won' when ${pick(1)} < 850 then 'lost' when ${pick(1)} < 900
        then 'accepted' when ${pick(1)} < 930 then 'charge_refunded' when ${pick(1)} < 960 then 'warning_closed'
        when ${pick(1)} < 990 then 'under_review' else 'response_disabled' end) end,
    case when ${pick(2)} < 500 then 'fraudulent' when ${pick(2)} < 650 then 'product_not_received'
      when ${pick(2)} < 730 then 'duplicate' when ${pick(2)} < 810 then 'subscription_canceled'
      when ${pick(2)} < 890 then 'general' when ${pick(2)} < 940 then 'product_unacceptable'
      when ${pick(2)} < 970 then 'unrecognized' when ${pick(2)} < 990 then 'credit_not_processed'
      else 'incorrect_account_details' end,
    case when ${pick(3)} < 950 then 'chargeback' when ${pick(3)} < 990 then 'pre_arbitration' else 'retrieval' end,
    'stripe',
    case when ${pick(4)} < 700 then 'stripe' when ${pick(4)} < 950 then 'braintree' else 'paypal' end,
    'acct_' || (${pick(5)} % 20),
    t.created - interval '3 days', t.created - interval '1 hour',
    t.created + ((7 + ${pick(6)} % 15) || ' days')::interval,
    'ch_' || i, 500 + ${pick(7)} * 97,
    case when ${pick(9)} < 800 then 'usd' when ${pick(9)} < 920 then 'eur' when ${pick(9)} < 980 then 'gbp'
      else 'jpy' end,
    'cus_' || (i % 30000), 'Person' || (i % 30000) || '@Example.com',
    case when i > ${Math.floor(count * 0.8)} then null when ${pick(10)} < 550 then 'visa'
      when ${pick(10)} < 850 then 'mastercard' when ${pick(10)} < 950 then 'amex' else 'discover' end,
    case when ${pick(11)} < 300 then 'tpl_default' end,
    t.created
  from generate_series(1, ${count}) as i,
    lateral (select '${new Date(newest).toISOString()}'::timestamptz - i * interval '1 minute' as created) t`;

beforeAll(async () => {
  db = await createTestDatabase();
  org = (await createOrganisation(db.db, { name: 'Busy' })).org;
  await db.sql.unsafe(seed(org, tenantRows, false));
  await db.sql.unsafe(seed(org, 5_000, true));
  for (const name of ['Beside', 'Another']) {
    await db.sql.unsafe(seed((await createOrganisation(db.db, { name })).org, 5_000, false));
  }
  await db.sql`vacuum analyze disputes`;
}, 120_000);
afterAll(async () => {
  await db.drop();
});

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

async function planOf(filters: DisputeFilters, page: Partial<Parameters<typeof filteredPage>[3]> = {}) {
  const statement = filteredPage(
    db.db,
    { orgId: org, livemode: false },
    filters,
    {
      cursor: null,
      backwards: false,
      limit: 101,
      ...page,
    },
    new Date(newest),
  ).toSQL();
  const [explained] = await db.sql.unsafe(
    `explain (format json) ${statement.sql}`,
    statement.params as never[],
  );
  const [plan] = (explained?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[];
  return plan?.Plan ?? {};
}

/**
 * `ordered`: an index gives the list's order, so nothing sorts more than a page; otherwise the matches of
 * the filter's own index may be sorted, but never a tenth of the tenant. `index`: the indexes the
 * planner may cut the page from.
 */
interface Case {
  filters: DisputeFilters;
  ordered: boolean;
  index?: string[];
}

const cases: Record<string, Case> = {
  'state, a common one': { filters: { states: ['won'] }, ordered: true, index: ['disputes_state_idx'] },
  'state, a rare one': {
    filters: { states: ['response_disabled'] },
    ordered: true,
    index: ['disputes_state_idx'],
  },
  'state, none has it': {
    filters: { states: ['requires_review'] },
    ordered: true,
    index: ['disputes_state_idx'],
  },
  'state, two rare ones': { filters: { states: ['accepted', 'charge_refunded'] }, ordered: false },
  account: { filters: { accounts: ['acct_3'] }, ordered: true, index: ['disputes_account_idx'] },
  'reason, a rare one': {
    filters: { reasons: ['incorrect_account_details'] },
    ordered: true,
    index: ['disputes_reason_idx'],
  },
  processor: { filters: { processors: ['paypal'] }, ordered: true, index: ['disputes_processor_idx'] },
  'processor, none has it': {
    filters: { processors: ['adyen'] },
    ordered: true,
    index: ['disputes_processor_idx'],
  },
  currency: { filters: { currencies: ['jpy'] }, ordered: true, index: ['disputes_currency_idx'] },
  'kind, a rare one': { filters: { kinds: ['retrieval'] }, ordered: false },
  network: { filters: { networks: ['discover'] }, ordered: false },
  'network, none has it': { filters: { networks: ['jcb'] }, ordered: false, index: ['disputes_network_idx'] },
  charge: { filters: { charges: ['ch_50000'] }, ordered: false, index: ['disputes_charge_idx'] },
  customer: { filters: { customers: ['cus_1234'] }, ordered: false, index: ['disputes_customer_idx'] },
  customer_email: {
    filters: { customerEmails: ['PERSON1234@example.com'] },
    ordered: false,
    index: ['disputes_customer_email_idx'],
  },
  'has_evidence=true': { filters: { hasEvidence: true }, ordered: true },
  'has_evidence=false': { filters: { hasEvidence: false }, ordered: true },
  'amount, the largest': { filters: { amount: { gte: 96_000 } }, ordered: false },
  'amount, a narrow range': { filters: { amount: { gte: 50_000, lte: 50_100 } }, ordered: false },
  'created, the last week': { filters: { created: { gte: daysBefore(7) } }, ordered: true },
  'created, a week long ago': {
    filters: { created: { gte: daysBefore(50), lt: daysBefore(43) } },
    ordered: true,
    index: ['disputes_list_idx'],
  },
  'due_by, the next week': {
    filters: { dueBy: { gte: daysBefore(0), lte: daysBefore(-7) } },
    ordered: false,
  },
  'due_by, a day long ago': {
    filters: { dueBy: { gte: daysBefore(40), lt: daysBefore(39) } },
    ordered: false,
    index: ['disputes_due_by_idx'],
  },
  'disputed_at, a day long ago': {
    filters: { disputedAt: { gte: daysBefore(50), lt: daysBefore(49) } },
    ordered: false,
    index: ['disputes_disputed_at_idx'],
  },
  // Windows wide enough that the planner would take their disputes to be found soon among the newest.
  'due_by, five days long ago': {
    filters: { dueBy: { gte: daysBefore(45), lt: daysBefore(40) } },
    ordered: false,
    index: ['disputes_due_by_idx'],
  },
  'disputed_at, five days long ago': {
    filters: { disputedAt: { gte: daysBefore(45), lte: daysBefore(40) } },
    ordered: false,
    index: ['disputes_disputed_at_idx'],
  },
  'state and due_by, open and due soon': {
    filters: { states: ['needs_response'], dueBy: { lte: daysBefore(-3) } },
    ordered: false,
    index: ['disputes_state_idx', 'disputes_due_by_idx'],
  },
  'state and due_by, decided long ago': {
    filters: { states: ['won'], dueBy: { gte: daysBefore(40), lt: daysBefore(33) } },
    ordered: false,
    index: ['disputes_state_idx', 'disputes_due_by_idx'],
  },
  'account and created': {
    filters: { accounts: ['acct_3'], created: { gte: daysBefore(50), lt: daysBefore(20) } },
    ordered: true,
    index: ['disputes_account_idx'],
  },
  'reason and created': {
    filters: { reasons: ['unrecognized'], created: { gte: daysBefore(50), lt: daysBefore(20) } },
    ordered: true,
    index: ['disputes_reason_idx'],
  },
};

function expectIndexed(plan: PlanNode, { ordered, index }: Case) {
  const context = JSON.stringify(plan);
  const nodes = nodesOf(plan);
  const reads = nodes.filter((node) => node['Relation Name'] === 'disputes');
  expect(reads.length, context).toBeGreaterThan(0);
  // Every read of disputes goes through an index: nothing scans the table.
  for (const read of reads) {
    expect(['Index Scan', 'Index Only Scan', 'Bitmap Heap Scan'], context).toContain(read['Node Type']);
  }
  const sorted = nodes
    .filter((node) => node['Node Type'] === 'Sort')
    .map((node) => node['Plan Rows'] as number);
  for (const rows of sorted) expect(rows, context).toBeLessThanOrEqual(ordered ? 101 : tenantRows / 10);
  const used = nodes.map((node) => node['Index Name']).filter((name) => name !== undefined);
  // The page is cut through one of the filter's indexes (the disputes it cut are then read by id).
  if (index)
    expect(
      used.some((name) => index.includes(name as string)),
      context,
    ).toBe(true);
}

describe('GET /v1/disputes query plans under filters', () => {
  it.each(Object.entries(cases))('%s reads through an index', async (_name, each) => {
    expectIndexed(await planOf(each.filters), each);
  });

  it.each(['account and created', 'reason and created', 'state and due_by, open and due soon'])(
    '%s from a cursor, in both directions',
    async (name) => {
      const each = cases[name] as Case;
      const cursor = { createdAt: daysBefore(30), id: 'dp_43200' };
      for (const backwards of [false, true])
        expectIndexed(await planOf(each.filters, { cursor, backwards }), each);
    },
  );
});
