import { disputes } from '../../src/db/schema/index.js';
import type { TestDatabase } from './database.js';

/**
 * Disputes stored with chosen attributes, for the list's filters, and those filters restated from
 * docs/api.md, "Disputes" (not imported from src/, so a test cannot agree with a bug).
 */

/** What a dispute's evidence is, for `has_evidence`: nothing, or one kind of it. */
export const evidenceKinds = [
  'none',
  'template',
  'fields',
  'products',
  'correspondence',
  'past_payments',
  'evidence_files',
] as const;

export interface Fixture {
  id: string;
  state: string;
  reason: string;
  kind: string;
  processor: string | null;
  account: string | null;
  network: string | null;
  charge: string | null;
  customer: string | null;
  customerEmail: string | null;
  currency: string;
  amount: number;
  created: Date;
  dueBy: Date | null;
  disputedAt: Date | null;
  evidence: (typeof evidenceKinds)[number];
}

/** A fixture's values where a test does not set them: an open Visa fraud dispute with nothing attached. */
export const baseFixture: Omit<Fixture, 'id' | 'created'> = {
  state: 'needs_response',
  reason: 'fraudulent',
  kind: 'chargeback',
  processor: 'stripe',
  account: 'acct_one',
  network: 'visa',
  charge: null,
  customer: null,
  customerEmail: null,
  currency: 'usd',
  amount: 1000,
  dueBy: new Date('2026-06-10T00:00:00Z'),
  disputedAt: new Date('2026-05-01T00:00:00Z'),
  evidence: 'none',
};

/** The evidence columns of each kind: any one of them is evidence attached. */
const evidenceColumns: Record<Fixture['evidence'], Partial<typeof disputes.$inferInsert>> = {
  none: {},
  template: { template: 'tpl_search' },
  fields: { fields: { order_id: 'A-1' } },
  products: { products: [{ name: 'Widget', quantity: 1, amount: 100 }] },
  correspondence: {
    correspondence: [{ to: 'a@example.com', from: 'b@example.com', subject: 'Hi', body: 'x' }],
  },
  past_payments: {
    pastPayments: [{ id: 'ch_past', amount: 100, currency: 'usd', charged_at: '2024-01-01' }],
  },
  evidence_files: {
    evidenceFiles: [{ file: 'file_00000000000000000000', category: 'receipt', description: null }],
  },
} as const;

/** Stores `fixtures` for an organisation in one mode, straight into the table (setup the API cannot do). */
export async function storeFixtures(
  db: TestDatabase['db'],
  org: string,
  fixtures: readonly Fixture[],
  livemode = false,
): Promise<void> {
  await db.insert(disputes).values(
    fixtures.map((fixture) => ({
      orgId: org,
      livemode,
      id: fixture.id,
      state: fixture.state,
      reason: fixture.reason,
      kind: fixture.kind,
      source: 'mock',
      processor: fixture.processor,
      account: fixture.account,
      network: fixture.network,
      charge: fixture.charge,
      customer: fixture.customer,
      customerEmail: fixture.customerEmail,
      currency: fixture.currency,
      amount: fixture.amount,
      createdAt: fixture.created,
      dueBy: fixture.dueBy,
      disputedAt: fixture.disputedAt,
      ...evidenceColumns[fixture.evidence],
    })),
  );
}

/**
 * `fixtures` for `org` in test mode, with lookalikes that every filter would match too, which no list of
 * its test key may show: the same disputes for `other` (ids ending `_theirs`) and in `org`'s live mode
 * (ids ending `_live`).
 */
export async function storeWithLookalikes(
  db: TestDatabase['db'],
  org: string,
  other: string,
  fixtures: readonly Fixture[],
): Promise<void> {
  await storeFixtures(db, org, fixtures);
  await storeFixtures(
    db,
    other,
    fixtures.map((fixture) => ({ ...fixture, id: `${fixture.id}_theirs` })),
  );
  await storeFixtures(
    db,
    org,
    fixtures.map((fixture) => ({ ...fixture, id: `${fixture.id}_live` })),
    true,
  );
}

export interface Range<T> {
  gte?: T;
  gt?: T;
  lte?: T;
  lt?: T;
}

/** The list's filters as a client sends them (values in the form the test checks them in). */
export interface Filters {
  state?: string[];
  account?: string[];
  reason?: string[];
  processor?: string[];
  kind?: string[];
  network?: string[];
  charge?: string[];
  customer?: string[];
  customer_email?: string[];
  currency?: string[];
  amount?: Range<number>;
  created?: Range<Date>;
  due_by?: Range<Date>;
  disputed_at?: Range<Date>;
  has_evidence?: boolean;
}

/** A timestamp as the API shows it, to the second; the filters compare so. */
const shown = (date: Date) => Math.floor(date.getTime() / 1000);

function inRange<T>(value: T | null, range: Range<T> | undefined, key: (value: T) => number): boolean {
  if (range === undefined) return true;
  if (value === null) return false;
  const at = key(value);
  return (
    (range.gte === undefined || at >= key(range.gte)) &&
    (range.gt === undefined || at > key(range.gt)) &&
    (range.lte === undefined || at <= key(range.lte)) &&
    (range.lt === undefined || at < key(range.lt))
  );
}

const anyOf = (value: string | null, values: string[] | undefined) =>
  values === undefined || values.length === 0 || (value !== null && values.includes(value));

/** Whether a dispute passes every filter given (docs/api.md, "Disputes"). */
export function passes(fixture: Fixture, filters: Filters): boolean {
  const email = fixture.customerEmail?.toLowerCase() ?? null;
  return (
    anyOf(fixture.state, filters.state) &&
    anyOf(fixture.account, filters.account) &&
    anyOf(fixture.reason, filters.reason) &&
    anyOf(fixture.processor, filters.processor) &&
    anyOf(fixture.kind, filters.kind) &&
    anyOf(fixture.network, filters.network) &&
    anyOf(fixture.charge, filters.charge) &&
    anyOf(fixture.customer, filters.customer) &&
    anyOf(
      email,
      filters.customer_email?.map((value) => value.toLowerCase()),
    ) &&
    anyOf(
      fixture.currency,
      filters.currency?.map((value) => value.toLowerCase()),
    ) &&
    inRange(fixture.amount, filters.amount, (amount) => amount) &&
    inRange(fixture.created, filters.created, shown) &&
    inRange(fixture.dueBy, filters.due_by, shown) &&
    inRange(fixture.disputedAt, filters.disputed_at, shown) &&
    (filters.has_evidence === undefined || (fixture.evidence !== 'none') === filters.has_evidence)
  );
}

/** The ids the list shows for `filters`: those passing, newest `created` first, ties by id, both descending. */
export function expectedIds(fixtures: readonly Fixture[], filters: Filters): string[] {
  return fixtures
    .filter((fixture) => passes(fixture, filters))
    .sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((fixture) => fixture.id);
}

/** Filters as a query object (qs brackets): ranges as `name[gte]`, timestamps in Unix seconds or ISO. */
export function queryOf(filters: Filters, iso = false): Record<string, unknown> {
  const time = (date: Date) => (iso ? date.toISOString() : String(Math.floor(date.getTime() / 1000)));
  const range = <T>(value: Range<T> | undefined, format: (value: T) => unknown) =>
    value && Object.fromEntries(Object.entries(value).map(([bound, at]) => [bound, format(at as T)]));
  return {
    ...filters,
    amount: range(filters.amount, String),
    created: range(filters.created, time),
    due_by: range(filters.due_by, time),
    disputed_at: range(filters.disputed_at, time),
  };
}
