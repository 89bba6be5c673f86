import type { Db } from '../../src/db/client.js';
import { alerts, disputes, submissions } from '../../src/db/schema/index.js';
import type { CompellingEvidence, CompellingEvidenceStatus } from '../../src/domain/compelling-evidence.js';
import type { EvidencePackage } from '../../src/domain/evidence.js';

/**
 * Hand-counted disputes, submissions and alerts for the statistics' prevented disputes, CE 3.0 verdicts
 * and alerts (docs/api.md, "Statistics"), inserted directly; what they must give is counted by hand from
 * the tables below, not by the code under test. Every dispute is 100 usd, disputed in
 * [2026-01-01, 2026-04-01) (the range of test/helpers/stats.ts).
 *
 * | id | processor | month | network | code | reason | state | resolution | submissions, oldest first | counts as |
 * |---|---|---|---|---|---|---|---|---|---|
 * | p1 | stripe | 01 | visa | - | fraudulent | won | - | ok not_qualified, ok qualified, failed not_qualified | qualified, won |
 * | p2 | stripe | 01 | visa | 10.4 | fraudulent | lost | - | ok qualified | qualified, lost |
 * | p3 | stripe | 02 | visa | ` 10.4` | fraudulent | won | - | ok requires_action | requires_action, won |
 * | p4 | braintree | 02 | visa | - | fraudulent | lost | - | ok, no verdict | not_qualified, lost |
 * | p5 | stripe | 02 | visa | - | fraudulent | needs_response | - | pending qualified | not_submitted, open |
 * | p6 | stripe | 03 | visa | 13.1 | fraudulent | won | - | ok qualified | not Visa fraud, won |
 * | p7 | stripe | 03 | mastercard | - | fraudulent | won | - | - | not Visa fraud, won |
 * | p8 | braintree | 03 | visa | - | fraudulent | warning_closed | rdr | - | not_submitted, prevented |
 * | p9 | stripe | 03 | - | - | product_not_received | charge_refunded | alert_refund | - | prevented |
 * | p10 | braintree | 03 | visa | 10.4 | fraudulent | lost | rdr | - | not_submitted, prevented (not lost) |
 * | p11 | stripe | 03 | - | - | general | charge_refunded | - | - | closed_otherwise |
 * | p12 | stripe | 03 | visa | - | fraudulent | lost | - | ok not_qualified | not_qualified, lost |
 *
 * Alerts, by `created` (the processor's `reported_at`, else the row's `created_at`):
 *
 * | id | processor | created | outcome | amount | dispute |
 * |---|---|---|---|---|---|
 * | al1 | stripe | 2026-01-10 (row) | refunded | 500 usd | - |
 * | al2 | stripe | 2026-01-20 (reported; row: now) | refunded | 700 usd | p9 |
 * | al3 | stripe | 2026-02-05 | open | 900 usd | - |
 * | al4 | adyen | 2026-02-07 | refunded | 300 eur | - |
 * | al5 | adyen | 2026-03-01 | disputed | 1000 eur | p8 |
 * | al6 | stripe | 2026-03-05 | refund_failed | 100 jpy | - |
 * | ax1, ax2, ax3 | stripe | 2025-12-31 23:59:59, 2026-04-01 (`to`), now (row) | refunded | 10000 usd | p1 |
 */

const at = (iso: string) => new Date(`${iso}Z`);

type Submission = ['succeeded' | 'failed' | 'pending', CompellingEvidenceStatus | null];

const disputeRows: [
  string,
  string,
  string,
  string | null,
  string | null,
  string,
  string,
  string | null,
  Submission[],
][] = [
  [
    'p1',
    'stripe',
    '01-05',
    'visa',
    null,
    'fraudulent',
    'won',
    null,
    [
      ['succeeded', 'not_qualified'],
      ['succeeded', 'qualified'],
      ['failed', 'not_qualified'],
    ],
  ],
  ['p2', 'stripe', '01-06', 'visa', '10.4', 'fraudulent', 'lost', null, [['succeeded', 'qualified']]],
  ['p3', 'stripe', '02-01', 'visa', ' 10.4', 'fraudulent', 'won', null, [['succeeded', 'requires_action']]],
  ['p4', 'braintree', '02-02', 'visa', null, 'fraudulent', 'lost', null, [['succeeded', null]]],
  ['p5', 'stripe', '02-03', 'visa', null, 'fraudulent', 'needs_response', null, [['pending', 'qualified']]],
  ['p6', 'stripe', '03-01', 'visa', '13.1', 'fraudulent', 'won', null, [['succeeded', 'qualified']]],
  ['p7', 'stripe', '03-02', 'mastercard', null, 'fraudulent', 'won', null, []],
  ['p8', 'braintree', '03-03', 'visa', null, 'fraudulent', 'warning_closed', 'rdr', []],
  ['p9', 'stripe', '03-04', null, null, 'product_not_received', 'charge_refunded', 'alert_refund', []],
  ['p10', 'braintree', '03-05', 'visa', '10.4', 'fraudulent', 'lost', 'rdr', []],
  ['p11', 'stripe', '03-06', null, null, 'general', 'charge_refunded', null, []],
  ['p12', 'stripe', '03-07', 'visa', null, 'fraudulent', 'lost', null, [['succeeded', 'not_qualified']]],
];

const verdictOf = (status: CompellingEvidenceStatus | null): CompellingEvidence | null =>
  status && { program: 'visa_ce3', status, required_actions: [], matched: [], prior_payments: [] };

const alertRows: [string, string, string | null, string | null, string, number, string, string | null][] = [
  // id, processor, reported_at, created_at (null: now), outcome, amount, currency, dispute
  ['al1', 'stripe', null, '2026-01-10T08:00:00', 'refunded', 500, 'usd', null],
  ['al2', 'stripe', '2026-01-20T08:00:00', null, 'refunded', 700, 'usd', 'p9'],
  ['al3', 'stripe', '2026-02-05T08:00:00', '2026-02-05T09:00:00', 'open', 900, 'usd', null],
  ['al4', 'adyen', '2026-02-07T08:00:00', '2026-02-07T09:00:00', 'refunded', 300, 'eur', null],
  ['al5', 'adyen', '2026-03-01T08:00:00', '2026-03-01T09:00:00', 'disputed', 1000, 'eur', 'p8'],
  ['al6', 'stripe', '2026-03-05T08:00:00', '2026-03-05T09:00:00', 'refund_failed', 100, 'jpy', null],
  ['ax1', 'stripe', '2025-12-31T23:59:59', '2026-01-02T00:00:00', 'refunded', 10_000, 'usd', 'p1'],
  ['ax2', 'stripe', '2026-04-01T00:00:00', '2026-03-31T00:00:00', 'refunded', 10_000, 'usd', 'p1'],
  ['ax3', 'stripe', null, null, 'refunded', 10_000, 'usd', 'p1'],
];

async function seedTenant(db: Db, orgId: string, livemode: boolean): Promise<void> {
  const stored = await db
    .insert(disputes)
    .values(
      disputeRows.map(([id, processor, day, network, networkReasonCode, reason, state, resolution]) => ({
        orgId,
        livemode,
        id,
        processor,
        source: processor,
        network,
        networkReasonCode,
        reason,
        state,
        resolution,
        amount: 100,
        currency: 'usd',
        disputedAt: at(`2026-${day}T10:00:00`),
      })),
    )
    .returning({ uid: disputes.uid, id: disputes.id });
  const uidOf = new Map(stored.map((row) => [row.id, row.uid]));
  const attempts = disputeRows.flatMap(([id, , day, , , , , , sent]) =>
    sent.map(([status, verdict], n) => ({
      id: `sub_${orgId}_${livemode}_${id}_${n}`,
      orgId,
      livemode,
      disputeUid: uidOf.get(id) ?? '',
      status,
      adapter: 'stripe',
      previousState: 'needs_response',
      evidence: {} as EvidencePackage,
      compellingEvidence: verdictOf(verdict),
      createdAt: new Date(at(`2026-${day}T10:00:00`).getTime() + (n + 1) * 3_600_000),
    })),
  );
  await db.insert(submissions).values(attempts);
  await db.insert(alerts).values(
    alertRows.map(([id, processor, reportedAt, createdAt, outcome, amount, currency, dispute]) => ({
      orgId,
      livemode,
      id,
      processor,
      account: processor,
      charge: `ch_${id}`,
      amount,
      currency,
      actionable: true,
      reportedAt: reportedAt ? at(reportedAt) : null,
      ...(createdAt && { createdAt: at(createdAt) }),
      outcome: outcome as 'open',
      refund: outcome === 'refunded' ? `re_${id}` : null,
      dispute,
    })),
  );
}

/** The tables above in `orgId`'s test mode, and again in its live mode and `otherOrgId`'s test mode. */
export async function seedPreventionFixtures(db: Db, orgId: string, otherOrgId: string): Promise<void> {
  await seedTenant(db, orgId, false);
  await seedTenant(db, orgId, true);
  await seedTenant(db, otherOrgId, false);
}

const ce = (
  counts: [
    visa: number,
    qualified: number,
    requiresAction: number,
    notQualified: number,
    notSubmitted: number,
  ],
  rates: [share: number | null, qualified: number | null, notQualified: number | null],
) => ({
  visa_fraud: counts[0],
  qualified: counts[1],
  requires_action: counts[2],
  not_qualified: counts[3],
  not_submitted: counts[4],
  qualified_share: rates[0],
  win_rate_qualified: rates[1],
  win_rate_not_qualified: rates[2],
});

/**
 * Every dispute as one group: won p1 p3 p6 p7, lost p2 p4 p12, open p5, closed p11, prevented p8 p10 (rdr)
 * and p9 (alert_refund). Visa fraud: qualified p1 p2 (won, lost), requires_action p3 (won), not_qualified
 * p4 p12 (both lost), not submitted p5 p8 p10.
 */
export const expectedPreventionTotal = {
  group: {},
  count: 12,
  won: 4,
  lost: 3,
  accepted: 0,
  open: 1,
  closed_otherwise: 1,
  prevented: 3,
  prevented_by: { rdr: 2, alert_refund: 1 },
  win_rate: 4 / 7,
  amounts: { usd: { disputed: 1200, won: 400, lost: 300 } },
  submitted: 0,
  median_seconds_to_submission: null,
  compelling_evidence: ce([8, 2, 1, 2, 3], [0.25, 0.5, 1 / 3]),
};

/** `group_by=processor`: braintree p4 p8 p10, stripe the other nine. */
export const expectedPreventionByProcessor = [
  {
    group: { processor: 'braintree' },
    count: 3,
    won: 0,
    lost: 1,
    accepted: 0,
    open: 0,
    closed_otherwise: 0,
    prevented: 2,
    prevented_by: { rdr: 2, alert_refund: 0 },
    win_rate: 0,
    amounts: { usd: { disputed: 300, won: 0, lost: 100 } },
    submitted: 0,
    median_seconds_to_submission: null,
    compelling_evidence: ce([3, 0, 0, 1, 2], [0, null, 0]),
  },
  {
    group: { processor: 'stripe' },
    count: 9,
    won: 4,
    lost: 2,
    accepted: 0,
    open: 1,
    closed_otherwise: 1,
    prevented: 1,
    prevented_by: { rdr: 0, alert_refund: 1 },
    win_rate: 4 / 6,
    amounts: { usd: { disputed: 900, won: 400, lost: 200 } },
    submitted: 0,
    median_seconds_to_submission: null,
    compelling_evidence: ce([5, 2, 1, 1, 1], [0.4, 0.5, 0.5]),
  },
];

/** The alerts al1-al6, in one group, by month and by processor. */
export const expectedAlertsTotal = {
  group_by: [],
  groups: [
    { group: {}, count: 6, refunded: 3, refunded_amounts: { eur: 300, usd: 1200 }, followed_by_dispute: 2 },
  ],
  has_more: false,
};

export const expectedAlertsByMonth = [
  {
    group: { month: '2026-01' },
    count: 2,
    refunded: 2,
    refunded_amounts: { usd: 1200 },
    followed_by_dispute: 1,
  },
  {
    group: { month: '2026-02' },
    count: 2,
    refunded: 1,
    refunded_amounts: { eur: 300 },
    followed_by_dispute: 0,
  },
  { group: { month: '2026-03' }, count: 2, refunded: 0, refunded_amounts: {}, followed_by_dispute: 1 },
];

export const expectedAlertsByProcessor = [
  {
    group: { processor: 'adyen' },
    count: 2,
    refunded: 1,
    refunded_amounts: { eur: 300 },
    followed_by_dispute: 1,
  },
  {
    group: { processor: 'stripe' },
    count: 4,
    refunded: 2,
    refunded_amounts: { usd: 1200 },
    followed_by_dispute: 1,
  },
];
