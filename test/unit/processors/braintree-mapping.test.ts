import { describe, expect, it } from 'vitest';
import { decimalToMinorUnits } from '../../../src/domain/money.js';
import { serviceLocalStates } from '../../../src/domain/states.js';
import {
  braintreeStatuses,
  evidenceLimits,
  kindTable,
  readDispute,
  reasonOf,
  reasonTable,
  stateOf,
  statusStates,
  toNormalizedDispute,
} from '../../../src/processors/braintree/mapping.js';

describe('braintree statuses', () => {
  it.each([
    ['open', 'chargeback', 'needs_response'],
    ['open', 'pre_arbitration', 'needs_response'],
    ['open', 'retrieval', 'warning_needs_response'],
    ['disputed', 'chargeback', 'under_review'],
    ['disputed', 'retrieval', 'warning_under_review'],
    ['under_review', 'chargeback', 'under_review'],
    ['under_review', 'retrieval', 'warning_under_review'],
    ['accepted', 'chargeback', 'lost'],
    ['accepted', 'retrieval', 'warning_closed'],
    ['auto_accepted', 'chargeback', 'lost'],
    ['auto_accepted', 'retrieval', 'warning_closed'],
    ['expired', 'chargeback', 'lost'],
    ['expired', 'retrieval', 'warning_closed'],
    ['won', 'chargeback', 'won'],
    ['won', 'pre_arbitration', 'won'],
    ['won', 'retrieval', 'warning_closed'],
    ['lost', 'chargeback', 'lost'],
    ['lost', 'retrieval', 'warning_closed'],
  ] as const)('%s %s is %s', (status, kind, state) => {
    expect(stateOf(status, kind)).toBe(state);
  });

  it('has a row for every Braintree status, and never answers one of this service’s own states', () => {
    expect(Object.keys(statusStates).sort()).toEqual([...braintreeStatuses].sort());
    for (const states of Object.values(statusStates)) {
      expect(serviceLocalStates).not.toContain(states.dispute);
      expect(serviceLocalStates).not.toContain(states.retrieval);
    }
  });
});

describe('braintree reasons', () => {
  it.each([
    ['cancelled_recurring_transaction', 'subscription_canceled'],
    ['credit_not_processed', 'credit_not_processed'],
    ['duplicate', 'duplicate'],
    ['fraud', 'fraudulent'],
    ['general', 'general'],
    ['invalid_account', 'incorrect_account_details'],
    ['not_recognized', 'unrecognized'],
    ['product_not_received', 'product_not_received'],
    ['product_unsatisfactory', 'product_unacceptable'],
    ['retrieval', 'retrieved'],
    ['transaction_amount_differs', 'transaction_amount_differs'],
  ])('%s is %s', (reason, target) => {
    expect(reasonOf(reason)).toBe(target);
  });

  it('has exactly the eleven reasons Braintree documents', () => {
    expect(Object.keys(reasonTable)).toHaveLength(11);
  });

  it.each([[undefined], [null], [''], ['chargeback_reason_new_in_2030'], ['constructor']])(
    'reads %s as general',
    (reason) => {
      expect(reasonOf(reason)).toBe('general');
    },
  );
});

describe('braintree kinds', () => {
  it('maps chargeback, pre-arbitration and retrieval one to one', () => {
    expect(kindTable).toEqual({
      chargeback: 'chargeback',
      pre_arbitration: 'pre_arbitration',
      retrieval: 'retrieval',
    });
  });
});

describe('braintree amounts', () => {
  it.each([
    ['12.34', 'USD', 1234],
    ['250.00', 'usd', 25000],
    ['0.5', 'EUR', 50],
    ['7', 'GBP', 700],
    ['-1.00', 'USD', -100],
    ['1500', 'JPY', 1500],
    ['1500.00', 'JPY', 1500],
    ['12.345', 'BHD', 12345],
    ['12.3', 'KWD', 12300],
    ['100', 'XYZ', 10000],
  ])('%s %s is %i minor units', (decimal, currency, minor) => {
    expect(decimalToMinorUnits(decimal, currency)).toBe(minor);
  });

  it.each([
    ['1500.50', 'JPY'],
    ['12.345', 'USD'],
    ['1.2.3', 'USD'],
    ['', 'USD'],
    ['12,34', 'EUR'],
    ['99999999999999999.99', 'USD'],
  ])('%s %s cannot be counted exactly', (decimal, currency) => {
    expect(decimalToMinorUnits(decimal, currency)).toBeUndefined();
  });
});

const dispute = {
  id: 'dp_1',
  status: 'open',
  kind: 'chargeback',
  reason: 'fraud',
  'reason-code': '10.4',
  'amount-disputed': '100.00',
  amount: '100.00',
  'currency-iso-code': 'USD',
  'received-date': '2026-02-15',
  'reply-by-date': '2026-02-22',
  'created-at': '2026-02-15T20:44:41Z',
  'updated-at': '2026-02-16T08:00:00Z',
  'status-history': [{ status: 'open', timestamp: '2026-02-15T20:44:41Z', 'effective-date': '2026-02-15' }],
  evidence: [],
  transaction: { id: 'tx_1', 'created-at': '2026-02-01T10:00:00Z', 'payment-instrument-subtype': 'Visa' },
};

describe('braintree dispute objects', () => {
  it('fills every field Braintree has, and no other', () => {
    expect(toNormalizedDispute(readDispute(dispute))).toEqual({
      id: 'dp_1',
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'chargeback',
      chargedAt: new Date('2026-02-01T10:00:00Z'),
      disputedAt: new Date('2026-02-15T00:00:00Z'),
      dueBy: new Date('2026-02-22T00:00:00Z'),
      closedAt: null,
      charge: 'tx_1',
      isChargeRefundable: null,
      amount: 10000,
      currency: 'usd',
      fee: null,
      reversalAmount: null,
      reversalTotal: null,
      reversalCurrency: null,
      customer: null,
      customerName: null,
      customerEmail: null,
      customerPurchaseIp: null,
      addressZip: null,
      addressLine1Check: null,
      addressZipCheck: null,
      cvcCheck: null,
      statementDescriptor: null,
      network: 'visa',
      networkReasonCode: '10.4',
      processorStatus: 'open',
      resolution: null,
      compellingEvidenceProcessorStatus: null,
    });
  });

  it.each([
    ['visa_rdr', 'auto_accepted', 'rdr', 'lost'],
    ['VISA_RDR', 'accepted', 'rdr', 'lost'],
    ['none', 'auto_accepted', null, 'lost'],
    [null, 'open', null, 'needs_response'],
  ])('pre-dispute program %s, status %s: resolution %s, state %s', (program, status, resolution, state) => {
    const read = readDispute({ ...dispute, status, 'pre-dispute-program': program });
    expect(toNormalizedDispute(read)).toMatchObject({ resolution, state });
  });

  it('closes a decided dispute at the latest history event of its status', () => {
    const won = readDispute({
      ...dispute,
      status: 'won',
      'status-history': [
        { status: 'open', timestamp: '2026-02-15T20:44:41Z' },
        { status: 'won', timestamp: '2026-03-01T09:00:00Z' },
        { status: 'won', timestamp: '2026-03-02T09:00:00Z' },
      ],
    });
    expect(toNormalizedDispute(won).closedAt).toEqual(new Date('2026-03-02T09:00:00Z'));
  });

  it('closes at the event’s effective date without a timestamp, else at the last update', () => {
    const dated = readDispute({
      ...dispute,
      status: 'lost',
      'status-history': [{ status: 'lost', 'effective-date': '2026-03-05' }],
    });
    expect(toNormalizedDispute(dated).closedAt).toEqual(new Date('2026-03-05T00:00:00Z'));
    const bare = readDispute({ ...dispute, status: 'expired', 'status-history': [] });
    expect(toNormalizedDispute(bare).closedAt).toEqual(new Date('2026-02-16T08:00:00Z'));
  });

  it('reads upper-case values as the GraphQL API spells them, and a dispute without kind as a chargeback', () => {
    const read = readDispute({
      ...dispute,
      status: 'UNDER_REVIEW',
      reason: 'PRODUCT_NOT_RECEIVED',
      kind: null,
    });
    expect(toNormalizedDispute(read)).toMatchObject({
      state: 'under_review',
      reason: 'product_not_received',
      kind: 'chargeback',
    });
  });

  it('takes the amount when amount-disputed is absent, and leaves dates Braintree did not give null', () => {
    const read = readDispute({
      ...dispute,
      'amount-disputed': null,
      amount: '5.00',
      'reply-by-date': null,
      transaction: null,
    });
    expect(toNormalizedDispute(read)).toMatchObject({
      amount: 500,
      dueBy: null,
      charge: null,
      chargedAt: null,
    });
  });

  it.each([
    [{ status: 'pending' }, 'status'],
    [{ 'currency-iso-code': 'US' }, 'currency-iso-code'],
    [{ 'amount-disputed': '1.005' }, 'amount-disputed'],
    [{ 'reply-by-date': '22/02/2026' }, 'reply-by-date'],
    [{ id: '' }, 'id'],
  ])('refuses %o, naming %s', (change, field) => {
    expect(() => readDispute({ ...dispute, ...change })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: [field] })] }),
    );
  });
});

describe('braintree evidence file slots', () => {
  it.each([
    ['receipt', 'GENERAL'],
    ['shipping_documentation', 'PROOF_OF_DELIVERY'],
    ['customer_communication', 'GENERAL'],
    ['customer_signature', 'GENERAL'],
    ['refund_policy', 'GENERAL'],
    ['cancellation_policy', 'GENERAL'],
    ['service_documentation', 'GENERAL'],
    ['duplicate_charge_documentation', 'GENERAL'],
    ['access_activity_log', 'MERCHANT_WEBSITE_OR_APP_ACCESS'],
    ['uncategorized', 'GENERAL'],
  ] as const)('%s → %s', (category, slot) => {
    expect(evidenceLimits.slots[category]).toBe(slot);
  });

  it('takes png, jpg and pdf of at most 4 MB, with no documented total, page or text limit', () => {
    expect(evidenceLimits).toMatchObject({
      types: ['pdf', 'png', 'jpg'],
      maxFileBytes: 4 * 1024 * 1024,
      maxTotalBytes: null,
      maxPages: null,
      textLimits: {},
    });
  });
});
