import { describe, expect, it } from 'vitest';
import { decimalToMinorUnits } from '../../../src/domain/money.js';
import {
  kindOf,
  kindTable,
  openStates,
  outcomeStates,
  type PaypalDispute,
  paypalDisputeSchema,
  paypalOutcomes,
  paypalReasons,
  paypalStages,
  paypalStatuses,
  reasonOf,
  reasonTable,
  stateOf,
  toNormalizedDispute,
} from '../../../src/processors/paypal/mapping.js';

const actionLinks = [
  { href: 'https://api-m.paypal.com/v1/customer/disputes/PP-D-1', rel: 'self', method: 'GET' },
  { href: 'https://api-m.paypal.com/v1/customer/disputes/PP-D-1/provide-evidence', rel: 'provide-evidence' },
];

function dispute(fields: Record<string, unknown>): PaypalDispute {
  return paypalDisputeSchema.parse({ dispute_id: 'PP-D-1', status: 'UNDER_REVIEW', ...fields });
}

describe('PayPal reasons', () => {
  it.each([
    ['MERCHANDISE_OR_SERVICE_NOT_RECEIVED', 'product_not_received'],
    ['MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED', 'product_unacceptable'],
    ['UNAUTHORISED', 'fraudulent'],
    ['CREDIT_NOT_PROCESSED', 'credit_not_processed'],
    ['DUPLICATE_TRANSACTION', 'duplicate'],
    ['INCORRECT_AMOUNT', 'transaction_amount_differs'],
    ['PAYMENT_BY_OTHER_MEANS', 'duplicate'],
    ['CANCELED_RECURRING_BILLING', 'subscription_canceled'],
    ['PROBLEM_WITH_REMITTANCE', 'general'],
    ['OTHER', 'general'],
  ])('%s is %s', (reason, expected) => {
    expect(reasonTable[reason as keyof typeof reasonTable]).toBe(expected);
    expect(reasonOf({ reason })).toBe(expected);
  });

  it('has a row for every reason PayPal publishes, and no other', () => {
    expect(Object.keys(reasonTable).sort()).toEqual([...paypalReasons].sort());
  });

  it('reads the card network code of an OTHER dispute (unbranded card chargebacks)', () => {
    expect(reasonOf({ reason: 'OTHER', external_reason_code: '10.4' })).toBe('fraudulent');
    expect(reasonOf({ reason: 'OTHER', external_reason_code: '4855' })).toBe('product_not_received');
  });

  it('keeps PayPal reason over the network code when PayPal names one', () => {
    expect(reasonOf({ reason: 'UNAUTHORISED', external_reason_code: '13.1' })).toBe('fraudulent');
  });

  it('maps a reason PayPal adds later to general, or to its network code', () => {
    expect(reasonOf({ reason: 'SOMETHING_NEW' })).toBe('general');
    expect(reasonOf({ reason: 'SOMETHING_NEW', external_reason_code: '13.2' })).toBe('subscription_canceled');
    expect(reasonOf({})).toBe('general');
  });
});

describe('PayPal stages', () => {
  it.each([
    ['INQUIRY', 'retrieval'],
    ['CHARGEBACK', 'chargeback'],
    ['PRE_ARBITRATION', 'pre_arbitration'],
    ['ARBITRATION', 'pre_arbitration'],
  ])('%s is a %s', (stage, kind) => {
    expect(kindTable[stage as keyof typeof kindTable]).toBe(kind);
    expect(kindOf(stage)).toBe(kind);
  });

  it('has a row for every stage, and reads an unknown or missing stage as a chargeback', () => {
    expect(Object.keys(kindTable).sort()).toEqual([...paypalStages].sort());
    expect(kindOf('SOMETHING_NEW')).toBe('chargeback');
    expect(kindOf(undefined)).toBe('chargeback');
  });
});

describe('PayPal statuses of open disputes', () => {
  it.each([
    ['OPEN', 'warning_needs_response', 'needs_response'],
    ['WAITING_FOR_SELLER_RESPONSE', 'warning_needs_response', 'needs_response'],
    ['WAITING_FOR_BUYER_RESPONSE', 'warning_under_review', 'under_review'],
    ['UNDER_REVIEW', 'warning_under_review', 'under_review'],
    ['OTHER', 'warning_under_review', 'under_review'],
  ])('%s is %s for an inquiry and %s for every later stage', (status, inquiry, later) => {
    expect(openStates[status as keyof typeof openStates]).toEqual({ inquiry, dispute: later });
    expect(stateOf(dispute({ status, dispute_life_cycle_stage: 'INQUIRY', links: actionLinks }))).toBe(
      inquiry,
    );
    for (const stage of ['CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION']) {
      expect(stateOf(dispute({ status, dispute_life_cycle_stage: stage, links: actionLinks }))).toBe(later);
    }
  });

  it('has a row for every status but RESOLVED', () => {
    expect(Object.keys(openStates).sort()).toEqual(paypalStatuses.filter((s) => s !== 'RESOLVED').sort());
  });

  it('reads a status PayPal adds later as under review', () => {
    expect(stateOf(dispute({ status: 'SOMETHING_NEW', dispute_life_cycle_stage: 'CHARGEBACK' }))).toBe(
      'under_review',
    );
  });

  it('is response_disabled while waiting on the merchant without a provide-evidence or accept-claim link', () => {
    const self = [actionLinks[0]];
    expect(stateOf(dispute({ status: 'WAITING_FOR_SELLER_RESPONSE', links: self }))).toBe(
      'response_disabled',
    );
    expect(
      stateOf(
        dispute({ status: 'WAITING_FOR_SELLER_RESPONSE', dispute_life_cycle_stage: 'INQUIRY', links: self }),
      ),
    ).toBe('response_disabled');
    const accept = [{ href: 'x', rel: 'accept-claim' }];
    expect(stateOf(dispute({ status: 'WAITING_FOR_SELLER_RESPONSE', links: accept }))).toBe('needs_response');
  });

  it('stays needs_response when the object carries no links at all (a webhook resource)', () => {
    expect(stateOf(dispute({ status: 'WAITING_FOR_SELLER_RESPONSE' }))).toBe('needs_response');
  });
});

describe('PayPal outcomes of resolved disputes', () => {
  it.each([
    ['RESOLVED_SELLER_FAVOUR', 'won'],
    ['CANCELED_BY_BUYER', 'won'],
    ['RESOLVED_WITH_PAYOUT', 'won'],
    ['DENIED', 'won'],
    ['RESOLVED_BUYER_FAVOUR', 'lost'],
    ['ACCEPTED', 'lost'],
    ['NONE', 'lost'],
  ])('a claim or chargeback resolved %s is %s', (outcome, state) => {
    expect(outcomeStates[outcome as keyof typeof outcomeStates]).toBe(state);
    for (const stage of ['CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION']) {
      const resolved = dispute({
        status: 'RESOLVED',
        dispute_life_cycle_stage: stage,
        dispute_outcome: { outcome_code: outcome },
      });
      expect(stateOf(resolved)).toBe(state);
    }
  });

  it('has a row for every outcome PayPal publishes', () => {
    expect(Object.keys(outcomeStates).sort()).toEqual([...paypalOutcomes].sort());
  });

  it('closes a resolved inquiry as warning_closed whatever its outcome', () => {
    for (const outcome of [...paypalOutcomes, undefined]) {
      const resolved = dispute({
        status: 'RESOLVED',
        dispute_life_cycle_stage: 'INQUIRY',
        ...(outcome && { dispute_outcome: { outcome_code: outcome } }),
      });
      expect(stateOf(resolved)).toBe('warning_closed');
    }
  });

  it('reads a resolution without an outcome, or with one PayPal adds later, as lost', () => {
    expect(stateOf(dispute({ status: 'RESOLVED', dispute_life_cycle_stage: 'CHARGEBACK' }))).toBe('lost');
    const unknown = dispute({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'SOMETHING_NEW' } });
    expect(stateOf(unknown)).toBe('lost');
  });
});

describe('PayPal amounts', () => {
  it.each([
    ['12.50', 'USD', 1250],
    ['0.01', 'USD', 1],
    ['.5', 'USD', 50],
    ['7', 'USD', 700],
    ['-3.20', 'USD', -320],
    ['1500', 'JPY', 1500],
    ['1500.00', 'JPY', 1500],
    ['1.250', 'TND', 1250],
    ['3.5', 'KWD', 3500],
    ['100', 'TWD', 10000],
    ['90071992547409.91', 'USD', 9007199254740991],
  ])('%s %s is %i minor units', (value, currency, minor) => {
    expect(decimalToMinorUnits(value, currency)).toBe(minor);
  });

  it.each([
    ['12.345', 'USD'],
    ['1500.5', 'JPY'],
    ['abc', 'USD'],
    ['', 'USD'],
    ['1.2.3', 'USD'],
    ['90071992547409.92', 'USD'],
  ])('%s %s is not an exact amount', (value, currency) => {
    expect(decimalToMinorUnits(value, currency)).toBeUndefined();
  });

  it('refuses a dispute whose amount is not exact in its currency', () => {
    const parsed = paypalDisputeSchema.safeParse({
      dispute_id: 'PP-D-1',
      status: 'OPEN',
      dispute_amount: { currency_code: 'JPY', value: '10.5' },
    });
    expect(parsed.success).toBe(false);
  });
});

describe('a PayPal dispute as a normalized dispute', () => {
  const base = {
    dispute_id: 'PP-D-27803',
    create_time: '2026-03-01T10:00:00.000Z',
    update_time: '2026-03-05T08:30:00.000Z',
    disputed_transactions: [
      {
        seller_transaction_id: '3BC38643YC807283D',
        buyer_transaction_id: '0KA0813557207621R',
        create_time: '2026-02-20T09:15:00.000Z',
        buyer: { name: 'Ada Lovelace' },
      },
    ],
    reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
    status: 'WAITING_FOR_SELLER_RESPONSE',
    external_reason_code: '13.1',
    dispute_amount: { currency_code: 'EUR', value: '49.99' },
    dispute_life_cycle_stage: 'CHARGEBACK',
    seller_response_due_date: '2026-03-15T23:59:59.000Z',
    links: actionLinks,
  };

  it('fills every field PayPal gives, with amounts in minor units and a lower-case currency', () => {
    expect(toNormalizedDispute(paypalDisputeSchema.parse(base))).toEqual({
      id: 'PP-D-27803',
      state: 'needs_response',
      reason: 'product_not_received',
      kind: 'chargeback',
      chargedAt: new Date('2026-02-20T09:15:00.000Z'),
      disputedAt: new Date('2026-03-01T10:00:00.000Z'),
      dueBy: new Date('2026-03-15T23:59:59.000Z'),
      closedAt: null,
      charge: '3BC38643YC807283D',
      isChargeRefundable: null,
      amount: 4999,
      currency: 'eur',
      fee: null,
      reversalAmount: null,
      reversalTotal: null,
      reversalCurrency: null,
      customer: null,
      customerName: 'Ada Lovelace',
      customerEmail: null,
      customerPurchaseIp: null,
      addressZip: null,
      addressLine1Check: null,
      addressZipCheck: null,
      cvcCheck: null,
      statementDescriptor: null,
      network: null,
      networkReasonCode: '13.1',
      processorStatus: 'WAITING_FOR_SELLER_RESPONSE',
      resolution: null,
      compellingEvidenceProcessorStatus: null,
    });
  });

  it('closes a resolved dispute at its last adjudication, and reads what PayPal took from the merchant', () => {
    const normalized = toNormalizedDispute(
      paypalDisputeSchema.parse({
        ...base,
        status: 'RESOLVED',
        dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR' },
        adjudications: [
          { type: 'RECOVER_FROM_SELLER', adjudication_time: '2026-03-20T12:00:00.000Z' },
          { type: 'PAYOUT_TO_BUYER', adjudication_time: '2026-03-21T12:00:00.000Z' },
        ],
        money_movements: [
          {
            affected_party: 'SELLER',
            type: 'DEBIT',
            reason: 'DISPUTE_SETTLEMENT',
            amount: { currency_code: 'EUR', value: '49.99' },
          },
          {
            affected_party: 'SELLER',
            type: 'DEBIT',
            reason: 'DISPUTE_FEE',
            amount: { currency_code: 'EUR', value: '15.00' },
          },
          {
            affected_party: 'BUYER',
            type: 'CREDIT',
            reason: 'DISPUTE_SETTLEMENT',
            amount: { currency_code: 'EUR', value: '49.99' },
          },
        ],
      }),
    );
    expect(normalized).toMatchObject({
      state: 'lost',
      closedAt: new Date('2026-03-21T12:00:00.000Z'),
      fee: 1500,
      reversalAmount: 4999,
      reversalTotal: 6499,
      reversalCurrency: 'eur',
    });
  });

  it('closes a resolved dispute without adjudications at its last update', () => {
    const won = paypalDisputeSchema.parse({
      ...base,
      status: 'RESOLVED',
      dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
    });
    expect(toNormalizedDispute(won)).toMatchObject({
      state: 'won',
      closedAt: new Date('2026-03-05T08:30:00.000Z'),
    });
  });

  it('reads the buyer name object of older answers, and the buyer email where PayPal shows it', () => {
    const older = paypalDisputeSchema.parse({
      ...base,
      disputed_transactions: [
        { buyer: { name: { given_name: 'Grace', surname: 'Hopper' }, email: 'grace@example.com' } },
      ],
    });
    expect(toNormalizedDispute(older)).toMatchObject({
      customerName: 'Grace Hopper',
      customerEmail: 'grace@example.com',
      charge: null,
      chargedAt: null,
    });
  });

  it('leaves amount, currency and deadline empty when PayPal gives none', () => {
    const bare = toNormalizedDispute(
      paypalDisputeSchema.parse({ dispute_id: 'PP-D-2', status: 'UNDER_REVIEW' }),
    );
    expect(bare).toMatchObject({ amount: null, currency: null, dueBy: null, disputedAt: null, charge: null });
  });
});
