import type postgres from 'postgres';
import { networks } from '../../../src/domain/networks.js';
import { seedValues } from './search-seed.js';

/**
 * The searches the search bench sends to GET /v1/disputes: each filter of docs/api.md alone, the common
 * pairs, and `include[]=total_count` with a few filters, each as a list of query strings cycling through
 * values found in the seeded data (so that consecutive requests read different rows), and with what
 * every dispute on such a page must satisfy, which tells whether the service applied the filter.
 */

/** The dispute object's attributes the checks read. */
export type DisputeJson = Record<string, unknown>;

export interface Search {
  path: string;
  /** Whether a dispute on the page satisfies the search. */
  matches(dispute: DisputeJson): boolean;
}

export interface Variant {
  name: string;
  limit: number;
  /** With `include[]=total_count`. */
  counts: boolean;
  searches: Search[];
}

/** Values found in the organisation's disputes, and the span of their `created`. */
export interface Samples {
  ids: string[];
  charges: string[];
  customers: string[];
  emails: string[];
  /** Unix seconds. */
  first: number;
  last: number;
}

export async function sampleValues(sql: postgres.Sql, org: string): Promise<Samples> {
  // A block sample: a few pages of the table, not a read of all of it; repeatable, so runs compare.
  const rows = await sql<{ id: string; charge: string; customer: string; email: string }[]>`
    select id, charge, customer, customer_email as email
    from disputes tablesample system (0.5) repeatable (42)
    where org_id = ${org} and livemode = false limit 200`;
  const [span] = await sql<{ first: number; last: number }[]>`
    select extract(epoch from min(created_at))::float8 as first, extract(epoch from max(created_at))::float8 as last
    from disputes where org_id = ${org} and livemode = false`;
  if (rows.length === 0 || !span)
    throw new Error('the search database holds no disputes of its organisation');
  return {
    ids: rows.map((row) => row.id),
    charges: rows.map((row) => row.charge),
    customers: rows.map((row) => row.customer),
    emails: rows.map((row) => row.email),
    first: Math.floor(span.first),
    last: Math.ceil(span.last),
  };
}

type Params = [string, string][];
interface Condition {
  params: Params;
  matches(dispute: DisputeJson): boolean;
}
/** The i-th condition of a filter. */
type Filter = (i: number) => Condition;

const day = 86_400;
const cycle = <T>(values: readonly T[], i: number): T => values[i % values.length] as T;
/** Well spread points of [0, 1): the golden ratio's multiples. */
const spread = (i: number) => (i * 0.618_033_988_75) % 1;
/** The object's timestamps are UTC without a zone (`2026-11-27T10:00:00`). */
const seconds = (value: unknown) => (typeof value === 'string' ? Date.parse(`${value}Z`) / 1000 : Number.NaN);

const equals =
  (param: string, values: readonly string[]): Filter =>
  (i) => {
    const value = cycle(values, i);
    // An attribute the object does not carry (yet) cannot tell: it passes.
    return {
      params: [[param, value]],
      matches: (dispute) => dispute[param] === undefined || dispute[param] === value,
    };
  };

/** `param[gte]`/`param[lte]` over windows of `width` seconds spread across [from, to]. */
const window =
  (param: string, from: number, to: number, width: number, format: 'unix' | 'iso'): Filter =>
  (i) => {
    const low = Math.floor(from + spread(i) * Math.max(0, to - from - width));
    const high = low + width;
    const show = (at: number) => (format === 'unix' ? String(at) : new Date(at * 1000).toISOString());
    return {
      params: [
        [`${param}[gte]`, show(low)],
        [`${param}[lte]`, show(high)],
      ],
      // The object shows whole seconds; the column keeps milliseconds.
      matches: (dispute) => seconds(dispute[param]) >= low - 1 && seconds(dispute[param]) <= high + 1,
    };
  };

const amountRange: Filter = (i) => {
  const low = Math.round(500 * 1000 ** spread(i));
  const high = Math.round(low * 1.5);
  return {
    params: [
      ['amount[gte]', String(low)],
      ['amount[lte]', String(high)],
    ],
    matches: (dispute) => Number(dispute.amount) >= low && Number(dispute.amount) <= high,
  };
};

const hasEvidence: Filter = (i) => {
  const wanted = i % 2 === 0;
  const evidence = (dispute: DisputeJson) =>
    dispute.template !== null ||
    ['fields', 'products', 'correspondence', 'past_payments', 'evidence_files'].some(
      (key) => Object.keys((dispute[key] as object | null) ?? {}).length > 0,
    );
  return { params: [['has_evidence', String(wanted)]], matches: (dispute) => evidence(dispute) === wanted };
};

const both =
  (first: Filter, second: Filter): Filter =>
  (i) => {
    const [a, b] = [first(i), second(i)];
    return {
      params: [...a.params, ...b.params],
      matches: (dispute) => a.matches(dispute) && b.matches(dispute),
    };
  };

const none: Filter = () => ({ params: [], matches: () => true });

/** Every variant, at each of `limits`; the counts at the first limit. */
export function searchVariants(samples: Samples, limits: readonly number[], perVariant: number): Variant[] {
  const { first, last } = samples;
  const accounts = [
    'default',
    ...Array.from({ length: seedValues.accounts - 1 }, (_, k) => `acct_${String(k + 1).padStart(3, '0')}`),
  ];
  // A month: the span clients look back over; due_by runs up to three weeks past the newest dispute.
  const created = window('created', first, last, 30 * day, 'unix');
  const dueBy = window('due_by', first, last + 21 * day, 14 * day, 'iso');
  const filters: [string, Filter][] = [
    ['state', equals('state', seedValues.states)],
    ['account', equals('account', accounts)],
    ['reason', equals('reason', seedValues.reasons)],
    ['processor', equals('processor', seedValues.processors)],
    ['kind', equals('kind', seedValues.kinds)],
    ['network', equals('network', networks)],
    ['charge', equals('charge', samples.charges)],
    ['customer', equals('customer', samples.customers)],
    ['customer_email', equals('customer_email', samples.emails)],
    ['currency', equals('currency', seedValues.currencies)],
    ['amount range', amountRange],
    ['created (7 days)', window('created', first, last, 7 * day, 'unix')],
    ['due_by (14 days)', dueBy],
    ['disputed_at (7 days)', window('disputed_at', first - 2 * day, last, 7 * day, 'unix')],
    ['has_evidence', hasEvidence],
    ['state + due_by', both(equals('state', seedValues.states), dueBy)],
    ['account + created', both(equals('account', accounts), created)],
    ['reason + created', both(equals('reason', seedValues.reasons), created)],
  ];
  const counted: [string, Filter][] = [
    ['count: all', none],
    ['count: state', equals('state', seedValues.states)],
    ['count: account + created', both(equals('account', accounts), created)],
    ['count: reason + created', both(equals('reason', seedValues.reasons), created)],
  ];
  const variant = (name: string, filter: Filter, limit: number, counts: boolean): Variant => ({
    name,
    limit,
    counts,
    searches: Array.from({ length: perVariant }, (_, i) => {
      const { params, matches } = filter(i);
      const query = new URLSearchParams([...params, ['limit', String(limit)]]);
      if (counts) query.append('include[]', 'total_count');
      return { path: `/v1/disputes?${query}`, matches };
    }),
  });
  return [
    ...limits.flatMap((limit) => filters.map(([name, filter]) => variant(name, filter, limit, false))),
    ...counted.map(([name, filter]) => variant(name, filter, limits[0] ?? 10, true)),
  ];
}
