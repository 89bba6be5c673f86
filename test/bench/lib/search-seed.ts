import type postgres from 'postgres';
import type { Db } from '../../../src/db/client.js';
import { templates } from '../../../src/db/schema/index.js';
import { type DisputeState, disputeStates } from '../../../src/domain/states.js';
import { kinds, processors, reasons } from '../../../src/domain/vocabulary.js';
import { benchTemplates } from './seed.js';

/**
 * The search bench's disputes, made by set-based SQL (one `insert ... select ... from generate_series`
 * per batch of 100,000, no rows through Node): a million take a minute or two. Every value derives from the
 * row's number through `hashint8extended`, so the same seed gives the same data.
 *
 * The spread is what a merchant's two years look like: most disputes decided (won, lost, accepted), the
 * open ones recent with their deadlines ahead, a few hundred connected accounts of which a handful hold
 * most disputes, charges, customers and emails nearly all distinct, a few currencies with one dominant,
 * amounts spread over three orders of magnitude, a quarter with a template and a third with evidence.
 *
 * Change SEED_VERSION with anything here that changes the data: a kept database of another version is
 * seeded again (search-database.ts).
 */
export const SEED_VERSION = 1;

/** Each value as often as its weight (weights of a list sum to 100), as an array to index. */
function bag(weights: Partial<Record<string, number>>): string[] {
  const values = Object.entries(weights).flatMap(([value, weight]) => Array<string>(weight ?? 0).fill(value));
  if (values.length !== 100) throw new Error(`weights sum to ${values.length}, not 100`);
  return values;
}

/**
 * A dispute's state follows its age: disputes arrive evenly over the two years, those disputed in the
 * last three weeks mostly await a response, those of the last three months mostly await the network,
 * and older ones are decided. So each state has its own stretch of the list, as in a real account: the
 * newest page of `won` lies some way below the newest disputes.
 */
const stateByAge: { days: number; weights: Partial<Record<DisputeState, number>> }[] = [
  {
    days: 21,
    weights: {
      needs_response: 55,
      queued: 10,
      requires_review: 8,
      warning_needs_response: 8,
      compiling_evidence: 7,
      submitted: 7,
      accepted: 5,
    },
  },
  {
    days: 90,
    weights: {
      under_review: 45,
      won: 12,
      lost: 10,
      submitted: 10,
      warning_under_review: 8,
      accepted: 5,
      charge_refunded: 5,
      response_disabled: 5,
    },
  },
  {
    days: Number.POSITIVE_INFINITY,
    weights: { won: 42, lost: 34, accepted: 12, warning_closed: 5, charge_refunded: 4, response_disabled: 3 },
  },
];
const spanDays = 730;
const submittedStates = ['submitted', 'under_review', 'won', 'lost', 'warning_under_review'];
const closedStates = ['won', 'lost', 'warning_closed', 'charge_refunded'];

const majorReasons = {
  fraudulent: 35,
  product_not_received: 15,
  general: 10,
  subscription_canceled: 8,
  product_unacceptable: 8,
  credit_not_processed: 6,
  unrecognized: 5,
  duplicate: 4,
};
/** The other reasons are rare: one in a hundred each. */
const reasonWeights: Record<string, number> = {
  ...Object.fromEntries(reasons.map((reason) => [reason, 1])),
  ...majorReasons,
};

export const seedValues = {
  states: disputeStates,
  reasons,
  kinds,
  processors,
  currencies: ['usd', 'eur', 'gbp', 'cad', 'aud', 'jpy'],
  /** Connected accounts `default`, `acct_001` ... `acct_399`: account k holds about k^(-2/3) of the disputes. */
  accounts: 400,
};

const bags = {
  reason: bag(reasonWeights),
  kind: bag({ chargeback: 90, pre_arbitration: 6, retrieval: 4 }),
  processor: bag({
    stripe: 45,
    adyen: 15,
    braintree: 12,
    paypal: 10,
    checkout: 8,
    worldpay: 5,
    vantiv: 3,
    amex: 2,
  }),
  currency: bag({ usd: 60, eur: 18, gbp: 10, cad: 5, aud: 4, jpy: 3 }),
  network: bag({ visa: 55, mastercard: 30, amex: 8, discover: 4, jcb: 1, unionpay: 1, diners: 1 }),
  emailDomain: bag({
    'gmail.com': 40,
    'yahoo.com': 15,
    'outlook.com': 15,
    'icloud.com': 10,
    'example.com': 20,
  }),
};
/** Common reason codes of the networks whose codes the service reads (src/processors/network-reasons.ts). */
const codes = {
  visa: ['10.4', '13.1', '13.2', '13.3', '12.6.1', '13.6', '10.1', '11.3'],
  mastercard: ['4837', '4853', '4855', '4841', '4834', '4863', '4860'],
  amex: ['F29', 'C08', 'C28', 'F24', 'C14', 'C31'],
};

/**
 * Inserts disputes `from`..`to` (row numbers) of one organisation's test mode, created up to `now`. The
 * organisation's templates must exist (insertTemplates).
 */
export async function insertDisputes(
  sql: postgres.Sql,
  org: string,
  rows: { from: number; to: number },
  now: Date,
): Promise<void> {
  // A string: drizzle's postgres-js driver leaves timestamps to the caller, and this client is drizzle's.
  const at = now.toISOString();
  // A uniform number in [0, 1) per row and stream k, from the row number alone.
  const u = (k: number) =>
    sql.unsafe(`(hashint8extended(g, ${k}) & 4503599627370495)::float8 / 4503599627370496.0`);
  // One of `values` for a uniform number in [0, 1).
  const pickBy = (uniform: postgres.Fragment, values: readonly string[]) =>
    sql`(${values as string[]}::text[])[1 + floor((${uniform}) * ${values.length})::int]`;
  const pick = (values: readonly string[], k: number) => pickBy(u(k), values);
  const days = (n: postgres.Fragment | number) => sql`make_interval(secs => (${n}) * 86400)`;
  // Customers (and their emails) recur a little: about one in five has two disputes.
  const customerKey = sql`floor(g * 0.8)::bigint`;
  const [recent, middle, old] = stateByAge.map(({ weights }) => bag(weights)) as [
    string[],
    string[],
    string[],
  ];
  const [recentDays, middleDays] = stateByAge.map(({ days }) => days);
  await sql`
    with picked as (
      select g,
        ${at}::timestamptz - ${days(sql`${u(8)} * ${spanDays}`)} as disputed_at,
        ${pick(bags.reason, 2)} as reason,
        ${pick(bags.kind, 3)} as kind,
        ${pick(bags.processor, 4)} as processor,
        floor(power(${u(5)}, 3) * ${seedValues.accounts})::int as account_no,
        ${pick(bags.currency, 6)} as currency,
        ${pick(bags.network, 7)} as network,
        ${u(9)} as due_u, ${u(10)} as step_u, ${u(11)} as amount_u,
        ${u(12)} as code_u, ${u(13)} as evidence_u,
        ${customerKey} as customer_no
      from generate_series(${rows.from}::bigint, ${rows.to}::bigint) g
    ), dated as (
      select picked.*,
        case when disputed_at > ${at}::timestamptz - ${days(recentDays ?? 0)} then ${pick(recent, 1)}
          when disputed_at > ${at}::timestamptz - ${days(middleDays ?? 0)} then ${pick(middle, 1)}
          else ${pick(old, 1)} end as state
      from picked
    )
    insert into disputes (
      org_id, livemode, id, state, reason, kind, source, processor, account, charged_at, disputed_at,
      due_by, closed_at, charge, is_charge_refundable, amount, currency, fee, customer, customer_name,
      customer_email, statement_descriptor, network, network_reason_code, processor_status, template,
      fields, products, reference_url, submitted_at, submitted_count, submit_at, created_at, updated_at
    )
    select
      ${org}, false, 'dp_' || substr(md5(${org} || ':dp:' || g), 1, 24), state, reason, kind,
      processor, processor,
      case account_no when 0 then 'default' else 'acct_' || lpad(account_no::text, 3, '0') end,
      disputed_at - ${days(sql`5 + step_u * 85`)}, disputed_at,
      disputed_at + ${days(sql`7 + floor(due_u * 15)`)},
      case when state = any(${closedStates}::text[])
        then least(${at}::timestamptz, disputed_at + ${days(sql`30 + step_u * 40`)}) end,
      'ch_' || substr(md5(${org} || ':ch:' || floor(g * 0.98)), 1, 24), false,
      floor(exp(ln(500) + amount_u * ln(1000)))::bigint, currency, 1500,
      'cus_' || substr(md5(${org} || ':cus:' || customer_no), 1, 14), 'Customer ' || customer_no,
      substr(md5(${org} || ':mail:' || customer_no), 1, 10) || '@' || (${bags.emailDomain}::text[])[
        1 + ((hashint8extended(customer_no, 99) & 1023) % 100)::int],
      'EXAMPLE SHOP',
      -- Amex's own processor only carries Amex cards.
      case when processor = 'amex' then 'amex' else network end,
      case case when processor = 'amex' then 'amex' else network end
        when 'visa' then ${pickBy(sql`code_u`, codes.visa)}
        when 'mastercard' then ${pickBy(sql`code_u`, codes.mastercard)}
        when 'amex' then ${pickBy(sql`code_u`, codes.amex)}
      end,
      -- The processor's own word; most processors' words are close to ours.
      state,
      case when evidence_u < 0.25
        then ${pickBy(
          sql`evidence_u * 4`,
          benchTemplates.map((template) => template.id),
        )} end,
      case when evidence_u < 0.35 then jsonb_build_object(
        'customer_name', 'Customer ' || customer_no, 'shipping_carrier', 'UPS',
        'shipping_tracking', '1Z' || upper(substr(md5(':track:' || g), 1, 16)),
        'notes', 'Customer confirmed receipt by email; signature on file.') else '{}'::jsonb end,
      case when evidence_u < 0.35 then jsonb_build_array(jsonb_build_object(
        'name', 'Widget Pro', 'description', 'Anodised aluminium widget, 2-pack',
        'sku', 'W-' || (1000 + g % 9000), 'quantity', 1 + g % 3,
        'amount', floor(exp(ln(500) + amount_u * ln(1000)))::bigint)) else '[]'::jsonb end,
      case when evidence_u < 0.35 then 'https://crm.example.com/tickets/' || g end,
      case when state = any(${submittedStates}::text[])
        then least(${at}::timestamptz, disputed_at + ${days(sql`1 + step_u * 5`)}) end,
      case when state = any(${submittedStates}::text[]) then 1 else 0 end,
      case when state = 'queued' then disputed_at + ${days(sql`5 + floor(due_u * 15)`)} end,
      least(${at}::timestamptz, disputed_at + ${days(sql`step_u * 2`)}),
      least(${at}::timestamptz, disputed_at + ${days(sql`step_u * 2`)})
    from dated`;
}

/** The bench's templates for `org` (those seed.ts gives the read bench), so that attached ones resolve. */
export async function insertTemplates(db: Db, org: string): Promise<void> {
  await db
    .insert(templates)
    .values(benchTemplates.map((template) => ({ ...template, orgId: org, livemode: false })));
}
