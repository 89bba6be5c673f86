import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { connectedAccounts, disputes } from '../../src/db/schema/index.js';
import { mirrorDisputes } from '../../src/features/mirroring/write.js';
import { normalizedDispute } from '../../src/processors/normalized.js';
import type { NormalizedDispute } from '../../src/processors/types.js';

/**
 * Hand-counted disputes for the outcome statistics (docs/api.md, "Statistics"), and what they must give,
 * counted by hand from the table below, not by the code under test. Every counted dispute has
 * `disputed_at` in [2026-01-01, 2026-04-01) of one organisation's test mode; the others must not count.
 *
 * | id | reason | processor | template | network | amount | state | disputed | submitted after |
 * |---|---|---|---|---|---|---|---|---|
 * | a1 | fraudulent | stripe | tpl_a | visa | 1000 usd | won | 01-05 | 86400 s |
 * | a2 | fraudulent | stripe | tpl_a | visa | 2000 usd | lost | 01-10 | 259200 s |
 * | a3 | fraudulent | stripe | tpl_b | mastercard | 500 eur | won | 02-01 | 172800 s |
 * | a4 | fraudulent | - | - | - | 700 eur | accepted | 02-03 | - |
 * | a5 | product_not_received | stripe | tpl_a | visa | 300 usd | needs_response | 02-10 | - |
 * | a6 | product_not_received | stripe | tpl_a | visa | 400 usd | under_review | 03-02 | 100 s |
 * | a7 | product_not_received | stripe | -tpl | visa | 600 usd | won | 03-05 | 201 s |
 * | a8 | general | stripe | - | amex | 5000 jpy | charge_refunded | 01-01 00:00 (= from) | - |
 * | pre | fraudulent | adyen | - | - | 2500 eur | lost (pre_arbitration) | 03-01 (reopened) | before disputed_at |
 *
 * `pre` is mirrored as an Adyen account writes it: a chargeback disputed on 01-20, answered on 01-22 and
 * won, then reopened as pre-arbitration on 03-01 and lost. It is one dispute, lost now; its submission
 * answered the first stage, so it is not in the median. `-tpl` is a template id a spreadsheet would read
 * as a formula.
 */

export const statsRangeQuery = { from: '2026-01-01T00:00:00Z', to: '2026-04-01T00:00:00Z' };

const at = (iso: string) => new Date(`${iso}Z`);
const after = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

interface Fixture {
  id: string;
  reason: string;
  processor: string | null;
  template: string | null;
  network: string | null;
  amount: number;
  currency: string;
  state: string;
  disputedAt: Date | null;
  submittedAfter?: number;
}

const counted: Fixture[] = [
  ['a1', 'fraudulent', 'stripe', 'tpl_a', 'visa', 1000, 'usd', 'won', '2026-01-05T10:00:00', 86400],
  ['a2', 'fraudulent', 'stripe', 'tpl_a', 'visa', 2000, 'usd', 'lost', '2026-01-10T10:00:00', 259200],
  ['a3', 'fraudulent', 'stripe', 'tpl_b', 'mastercard', 500, 'eur', 'won', '2026-02-01T10:00:00', 172800],
  ['a4', 'fraudulent', null, null, null, 700, 'eur', 'accepted', '2026-02-03T10:00:00'],
  [
    'a5',
    'product_not_received',
    'stripe',
    'tpl_a',
    'visa',
    300,
    'usd',
    'needs_response',
    '2026-02-10T10:00:00',
  ],
  [
    'a6',
    'product_not_received',
    'stripe',
    'tpl_a',
    'visa',
    400,
    'usd',
    'under_review',
    '2026-03-02T10:00:00',
    100,
  ],
  ['a7', 'product_not_received', 'stripe', '-tpl', 'visa', 600, 'usd', 'won', '2026-03-05T10:00:00', 201],
  ['a8', 'general', 'stripe', null, 'amex', 5000, 'jpy', 'charge_refunded', '2026-01-01T00:00:00'],
].map(([id, reason, processor, template, network, amount, currency, state, disputed, submittedAfter]) => ({
  id: id as string,
  reason: reason as string,
  processor: processor as string | null,
  template: template as string | null,
  network: network as string | null,
  amount: amount as number,
  currency: currency as string,
  state: state as string,
  disputedAt: at(disputed as string),
  ...(submittedAfter !== undefined && { submittedAfter: submittedAfter as number }),
}));

/** Disputes that must not count: out of range (either side, `to` excluded), undated. */
const outOfRange: Fixture[] = [
  ['x1', '2025-12-31T23:59:59'],
  ['x2', '2026-04-01T00:00:00'],
  ['x3', null],
].map(([id, disputed]) => ({
  id: id as string,
  reason: 'fraudulent',
  processor: 'stripe',
  template: 'tpl_a',
  network: 'visa',
  amount: 100_000,
  currency: 'usd',
  state: 'won',
  disputedAt: disputed ? at(disputed) : null,
  submittedAfter: 1,
}));

function rowOf(orgId: string, livemode: boolean, fixture: Fixture) {
  const { submittedAfter, disputedAt, ...columns } = fixture;
  return {
    ...columns,
    orgId,
    livemode,
    source: columns.processor ?? 'api',
    kind: 'chargeback',
    disputedAt,
    submittedAt: disputedAt && submittedAfter !== undefined ? after(disputedAt, submittedAfter) : null,
    submittedCount: submittedAfter === undefined ? 0 : 1,
  };
}

/** The won-then-lost dispute, through mirroring as an Adyen account's news would write it. */
async function preArbitration(db: Db, orgId: string): Promise<void> {
  const [account] = await db
    .insert(connectedAccounts)
    .values({ orgId, livemode: false, id: 'adyen', processor: 'adyen' })
    .returning();
  if (!account) throw new Error('no account');
  const opened: NormalizedDispute = normalizedDispute({
    id: 'pre',
    state: 'needs_response',
    reason: 'fraudulent',
    kind: 'chargeback',
    disputedAt: at('2026-01-20T09:00:00'),
    amount: 2500,
    currency: 'eur',
  });
  const stored = and(eq(disputes.orgId, orgId), eq(disputes.livemode, false), eq(disputes.id, 'pre'));
  await mirrorDisputes(db, account, [opened]);
  await db
    .update(disputes)
    .set({ state: 'submitted', submittedAt: at('2026-01-22T09:00:00'), submittedCount: 1 })
    .where(stored);
  await mirrorDisputes(db, account, [{ ...opened, state: 'won', closedAt: at('2026-02-10T00:00:00') }]);
  const reopened = { ...opened, kind: 'pre_arbitration' as const, disputedAt: at('2026-03-01T09:00:00') };
  await mirrorDisputes(db, account, [reopened]);
  await mirrorDisputes(db, account, [{ ...reopened, state: 'lost', closedAt: at('2026-03-20T00:00:00') }]);
  const [row] = await db.select().from(disputes).where(stored);
  expect(row).toMatchObject({
    state: 'lost',
    kind: 'pre_arbitration',
    processor: 'adyen',
    disputedAt: at('2026-03-01T09:00:00'),
    submittedAt: at('2026-01-22T09:00:00'),
  });
}

/**
 * The table above in `orgId`'s test mode; the same disputes again in its live mode and in `otherOrgId`'s
 * test mode, which must not count either.
 */
export async function seedStatsFixtures(db: Db, orgId: string, otherOrgId: string): Promise<void> {
  await db
    .insert(disputes)
    .values([
      ...[...counted, ...outOfRange].map((fixture) => rowOf(orgId, false, fixture)),
      ...counted.map((fixture) => rowOf(orgId, true, fixture)),
      ...counted.map((fixture) => rowOf(otherOrgId, false, fixture)),
    ]);
  await preArbitration(db, orgId);
}

const amounts = (disputed: number, won: number, lost: number) => ({ disputed, won, lost });
const notPrevented = { prevented: 0, prevented_by: { rdr: 0, alert_refund: 0 } };
/** Visa fraud disputes by CE 3.0 verdict: a1 and a2 (Visa, fraudulent, no code) were never submitted here. */
const compellingEvidence = (visaFraud: number) => ({
  compelling_evidence: {
    visa_fraud: visaFraud,
    qualified: 0,
    requires_action: 0,
    not_qualified: 0,
    not_submitted: visaFraud,
    qualified_share: visaFraud > 0 ? 0 : null,
    win_rate_qualified: null,
    win_rate_not_qualified: null,
  },
});

/** Every counted dispute as one group (no `group_by`). Median of 100, 201, 86400, 172800, 259200. */
export const expectedTotal = {
  group: {},
  count: 9,
  won: 3,
  lost: 2,
  accepted: 1,
  open: 2,
  closed_otherwise: 1,
  ...notPrevented,
  win_rate: 0.6,
  amounts: { eur: amounts(3700, 500, 2500), jpy: amounts(5000, 0, 0), usd: amounts(4300, 1600, 2000) },
  submitted: 5,
  median_seconds_to_submission: 86400,
  ...compellingEvidence(2),
};

/** `group_by=reason`: an odd count (3) and an even one (2: 100 and 201, 150.5 rounded away from zero). */
export const expectedByReason = [
  {
    group: { reason: 'fraudulent' },
    count: 5,
    won: 2,
    lost: 2,
    accepted: 1,
    open: 0,
    closed_otherwise: 0,
    ...notPrevented,
    win_rate: 0.5,
    amounts: { eur: amounts(3700, 500, 2500), usd: amounts(3000, 1000, 2000) },
    submitted: 3,
    median_seconds_to_submission: 172800,
    ...compellingEvidence(2),
  },
  {
    group: { reason: 'general' },
    count: 1,
    won: 0,
    lost: 0,
    accepted: 0,
    open: 0,
    closed_otherwise: 1,
    ...notPrevented,
    win_rate: null,
    amounts: { jpy: amounts(5000, 0, 0) },
    submitted: 0,
    median_seconds_to_submission: null,
    ...compellingEvidence(0),
  },
  {
    group: { reason: 'product_not_received' },
    count: 3,
    won: 1,
    lost: 0,
    accepted: 0,
    open: 2,
    closed_otherwise: 0,
    ...notPrevented,
    win_rate: 1,
    amounts: { usd: amounts(1300, 600, 0) },
    submitted: 2,
    median_seconds_to_submission: 151,
    ...compellingEvidence(0),
  },
];
