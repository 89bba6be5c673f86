import { describe, expect, it } from 'vitest';
import {
  type AlertRefundThresholds,
  type RefundableAlert,
  refundRefusal,
  refundsOnItsOwn,
  refundThreshold,
} from '../../src/domain/alert-refund-rule.js';

/**
 * The refund rule of docs/api.md, "Refunds", as a table: each row an alert, the organisation's
 * thresholds, and whether the alert is refunded on its own.
 */

const alert = (over: Partial<RefundableAlert> = {}): RefundableAlert => ({
  livemode: false,
  outcome: 'open',
  actionable: true,
  charge: 'ch_1',
  amount: 5000,
  currency: 'usd',
  dispute: null,
  ...over,
});

const usd5000: AlertRefundThresholds = { test: { usd: 5000 } };

const rows: [name: string, alert: RefundableAlert, thresholds: AlertRefundThresholds, refunded: boolean][] = [
  ['at the threshold', alert(), usd5000, true],
  ['one under the threshold', alert({ amount: 4999 }), usd5000, true],
  ['one above the threshold', alert({ amount: 5001 }), usd5000, false],
  ['a zero amount', alert({ amount: 0 }), usd5000, true],
  ['no threshold at all', alert(), {}, false],
  ['another currency has the threshold', alert({ currency: 'eur' }), usd5000, false],
  [
    'each currency its own threshold',
    alert({ currency: 'eur', amount: 900 }),
    { test: { usd: 5000, eur: 1000 } },
    true,
  ],
  [
    'each currency its own threshold, over',
    alert({ currency: 'eur', amount: 1001 }),
    { test: { usd: 5000, eur: 1000 } },
    false,
  ],
  ['the currency in upper case', alert({ currency: 'USD' }), usd5000, true],
  ['the threshold of the other mode', alert({ livemode: true }), usd5000, false],
  ['live with a live threshold', alert({ livemode: true }), { live: { usd: 5000 } }, true],
  ['test with only a live threshold', alert(), { live: { usd: 5000 } }, false],
  ['a zero threshold and an amount', alert({ amount: 1 }), { test: { usd: 0 } }, false],
  ['not actionable', alert({ actionable: false }), usd5000, false],
  ['no charge', alert({ charge: null }), usd5000, false],
  ['no amount', alert({ amount: null }), usd5000, false],
  ['no currency', alert({ currency: null }), usd5000, false],
  ['refunded already', alert({ outcome: 'refunded' }), usd5000, false],
  ['refused already', alert({ outcome: 'refund_failed' }), usd5000, false],
  ['disputed', alert({ outcome: 'disputed' }), usd5000, false],
  ['open but linked to a dispute', alert({ dispute: 'dp_1' }), usd5000, false],
  ['ignored', alert({ outcome: 'ignored' }), usd5000, false],
  ['an inherited key is no currency', alert({ currency: 'constructor' }), usd5000, false],
];

describe('refundsOnItsOwn', () => {
  it.each(rows)('%s', (_name, given, thresholds, refunded) => {
    expect(refundsOnItsOwn(given, thresholds)).toBe(refunded);
  });
});

describe('refundThreshold', () => {
  it('reads the mode and the currency in any case', () => {
    expect(refundThreshold({ test: { usd: 1 }, live: { usd: 2 } }, false, 'USD')).toBe(1);
    expect(refundThreshold({ test: { usd: 1 }, live: { usd: 2 } }, true, 'usd')).toBe(2);
    expect(refundThreshold({ test: { usd: 1 } }, false, 'eur')).toBeNull();
  });
});

describe('refundRefusal', () => {
  const cases: [RefundableAlert, string | null][] = [
    [alert(), null],
    // By hand, no amount is needed: the processor refunds the charge in full.
    [alert({ amount: null, currency: null }), null],
    [alert({ outcome: 'refunded' }), 'The alert was refunded already.'],
    [alert({ outcome: 'refund_failed' }), 'The processor refused this refund already; see refund_failure.'],
    [alert({ outcome: 'disputed' }), 'A dispute arrived for this charge: answer the dispute instead.'],
    [alert({ outcome: 'ignored' }), 'The processor no longer offers this alert for action.'],
    [
      alert({ actionable: false }),
      'The alert is not actionable: the processor no longer offers a refund for it.',
    ],
    [alert({ charge: null }), 'The alert names no charge to refund.'],
    [alert({ dispute: 'dp_1' }), 'A dispute arrived for this charge: answer the dispute instead.'],
  ];
  it.each(cases)('%o: %s', (given, refusal) => {
    expect(refundRefusal(given)).toBe(refusal);
  });
});
