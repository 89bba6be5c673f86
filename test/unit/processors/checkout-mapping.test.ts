import { describe, expect, it } from 'vitest';
import { evidenceFileCategories } from '../../../src/domain/evidence-files.js';
import { serviceLocalStates } from '../../../src/domain/states.js';
import { evidenceTextFields } from '../../../src/processors/checkout/evidence.js';
import {
  type CheckoutDispute,
  categoryReasons,
  checkoutDispute,
  checkoutEvidenceLimits,
  checkoutStatuses,
  normalizeDispute,
  reasonOf,
  resolvedReasonStates,
  statusTable,
} from '../../../src/processors/checkout/mapping.js';

const base: CheckoutDispute = checkoutDispute.parse({
  id: 'dsp_rbhwd2qrg13uhrp2newf00',
  category: 'fraudulent',
  status: 'evidence_required',
  amount: 999,
  currency: 'GBP',
  reason_code: '10.4',
  payment_id: 'pay_88cb4e671m1da22e9bbbyx0000',
  payment_method: 'VISA',
  evidence_required_by: '2018-08-22T00:00:00Z',
  received_on: '2018-08-01T01:15:56Z',
  last_update: '2018-08-12T04:15:56.5042702Z',
});
const dispute = (changes: Partial<CheckoutDispute>) => normalizeDispute({ ...base, ...changes });

describe('Checkout.com statuses', () => {
  it.each([
    ['evidence_required', 'needs_response', 'chargeback'],
    ['evidence_under_review', 'under_review', 'chargeback'],
    ['resolved', 'charge_refunded', 'chargeback'],
    ['won', 'won', 'chargeback'],
    ['lost', 'lost', 'chargeback'],
    ['canceled', 'won', 'chargeback'],
    ['expired', 'lost', 'chargeback'],
    ['accepted', 'lost', 'chargeback'],
    ['arbitration_under_review', 'under_review', 'pre_arbitration'],
    ['arbitration_won', 'won', 'pre_arbitration'],
    ['arbitration_lost', 'lost', 'pre_arbitration'],
  ] as const)('%s is %s, a %s', (status, state, kind) => {
    expect(statusTable[status]).toEqual({ state, kind });
    expect(dispute({ status })).toMatchObject({ state, kind });
  });

  it('has a row for every status, none a state of this service', () => {
    expect(Object.keys(statusTable).sort()).toEqual([...checkoutStatuses].sort());
    for (const { state } of Object.values(statusTable)) expect(serviceLocalStates).not.toContain(state);
  });

  it.each([
    ['already_refunded', 'charge_refunded'],
    ['rapid_dispute_resolution', 'charge_refunded'],
    ['negative_amount', 'won'],
  ] as const)('resolved because %s is %s', (reason, state) => {
    expect(resolvedReasonStates[reason]).toBe(state);
    expect(dispute({ status: 'resolved', resolved_reason: reason }).state).toBe(state);
  });

  it.each([
    ['resolved', 'rapid_dispute_resolution', 'rdr'],
    ['resolved', 'already_refunded', null],
    ['resolved', null, null],
    ['won', 'rapid_dispute_resolution', null],
  ] as const)('status %s resolved because %s: resolution %s', (status, reason, resolution) => {
    expect(dispute({ status, resolved_reason: reason }).resolution).toBe(resolution);
  });

  it('a resolved_reason it does not know leaves the status row', () => {
    expect(dispute({ status: 'resolved', resolved_reason: 'something_new' }).state).toBe('charge_refunded');
  });

  it('resolved_reason only counts for resolved disputes', () => {
    expect(dispute({ status: 'won', resolved_reason: 'already_refunded' }).state).toBe('won');
  });

  it('refuses a status it does not know', () => {
    expect(checkoutDispute.safeParse({ ...base, status: 'arbitration' }).success).toBe(false);
  });

  it.each([
    ['won', true],
    ['lost', true],
    ['accepted', true],
    ['resolved', true],
    ['evidence_required', false],
    ['evidence_under_review', false],
    ['arbitration_under_review', false],
  ] as const)('%s sets closedAt from last_update: %s', (status, closed) => {
    expect(dispute({ status }).closedAt).toEqual(closed ? new Date('2018-08-12T04:15:56.504Z') : null);
  });
});

describe('Checkout.com categories', () => {
  it.each([
    ['fraudulent', 'fraudulent'],
    ['unrecognized', 'unrecognized'],
    ['canceled_recurring', 'subscription_canceled'],
    ['product_service_not_received', 'product_not_received'],
    ['not_as_described', 'product_unacceptable'],
    ['credit_not_issued', 'credit_not_processed'],
    ['duplicate', 'duplicate'],
    ['incorrect_amount', 'transaction_amount_differs'],
    ['general', 'general'],
  ] as const)('%s is %s', (category, reason) => {
    expect(categoryReasons[category]).toBe(reason);
    expect(reasonOf(category, null, null)).toBe(reason);
  });

  it('has a row for each category of the reference, and no others', () => {
    expect(Object.keys(categoryReasons)).toHaveLength(9);
  });

  it.each([
    ['general', '13.1', 'Visa', 'product_not_received'],
    ['general', '4853', 'Mastercard', 'product_unacceptable'],
    ['a_new_category', '4837', 'MASTERCARD', 'fraudulent'],
    [null, '12.6.1', 'VISA', 'duplicate'],
    ['general', 'ZZ9', 'Visa', 'general'],
  ] as const)('%s with scheme code %s (%s) is %s', (category, code, scheme, reason) => {
    expect(reasonOf(category, code, scheme)).toBe(reason);
  });

  it('a specific category wins over the scheme code', () => {
    expect(reasonOf('duplicate', '10.4', 'Visa')).toBe('duplicate');
  });

  it('reads the scheme from the full object when the summary field is absent', () => {
    const full = { ...base, category: 'general', payment_method: undefined, reason_code: '4834' };
    expect(normalizeDispute({ ...full, payment: { id: 'pay_x', method: 'Mastercard' } }).reason).toBe(
      'duplicate',
    );
  });
});

describe('Checkout.com dispute fields', () => {
  it('maps every field the processor fills', () => {
    expect(normalizeDispute(base)).toEqual({
      id: 'dsp_rbhwd2qrg13uhrp2newf00',
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'chargeback',
      chargedAt: null,
      disputedAt: new Date('2018-08-01T01:15:56Z'),
      dueBy: new Date('2018-08-22T00:00:00Z'),
      closedAt: null,
      charge: 'pay_88cb4e671m1da22e9bbbyx0000',
      isChargeRefundable: null,
      amount: 999,
      currency: 'gbp',
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
      processorStatus: 'evidence_required',
      resolution: null,
      compellingEvidenceProcessorStatus: null,
    });
  });

  it.each([
    ['JPY', 5000, 5000],
    ['BHD', 12345, 12345],
    ['EUR', -999, 999],
  ] as const)('keeps %s amounts in minor units as given (%i is %i)', (currency, amount, expected) => {
    expect(dispute({ currency, amount })).toMatchObject({
      amount: expected,
      currency: currency.toLowerCase(),
    });
  });

  it('takes the charge from the full object’s payment when there is no payment_id', () => {
    expect(dispute({ payment_id: undefined, payment: { id: 'pay_nested' } }).charge).toBe('pay_nested');
  });

  it('leaves absent dates null', () => {
    expect(dispute({ evidence_required_by: null, received_on: undefined })).toMatchObject({
      dueBy: null,
      disputedAt: null,
    });
  });

  it('refuses amounts that are not whole minor units', () => {
    expect(checkoutDispute.safeParse({ ...base, amount: 9.99 }).success).toBe(false);
  });
});

describe('Checkout.com evidence limits', () => {
  it('slots each category in the *_file field that fits it; the others go in the document', () => {
    expect(
      Object.fromEntries(
        evidenceFileCategories.map((category) => [category, checkoutEvidenceLimits.slots[category] ?? null]),
      ),
    ).toEqual({
      receipt: 'invoice_or_receipt_file',
      shipping_documentation: 'proof_of_delivery_or_service_file',
      customer_communication: 'customer_communication_file',
      customer_signature: 'customer_communication_file',
      refund_policy: 'refund_or_cancellation_policy_file',
      cancellation_policy: 'refund_or_cancellation_policy_file',
      service_documentation: 'proof_of_delivery_or_service_file',
      duplicate_charge_documentation: 'invoice_showing_distinct_transactions_file',
      access_activity_log: null,
      uncategorized: null,
    });
  });

  it('takes PDF, PNG and JPEG of 4 MB each, texts of 500 characters, and no total or page limit', () => {
    expect(checkoutEvidenceLimits).toEqual({
      slots: expect.any(Object),
      types: ['pdf', 'png', 'jpg'],
      maxFileBytes: 4_194_304,
      maxTotalBytes: null,
      maxPages: null,
      textLimits: { '*': 500 },
    });
  });
});

describe('evidence as Checkout.com text fields', () => {
  it.each([
    ['shipping_tracking_number', 'proof_of_delivery_or_service_text'],
    ['shipping_carrier', 'proof_of_delivery_or_service_text'],
    ['shipping_address', 'proof_of_delivery_or_service_text'],
    ['access_activity_log', 'proof_of_delivery_or_service_text'],
    ['shipping_date', 'proof_of_delivery_or_service_date_text'],
    ['service_date', 'proof_of_delivery_or_service_date_text'],
    ['receipt', 'invoice_or_receipt_text'],
    ['product_description', 'invoice_or_receipt_text'],
    ['duplicate_charge_id', 'invoice_showing_distinct_transactions_text'],
    ['duplicate_charge_explanation', 'invoice_showing_distinct_transactions_text'],
    ['customer_communication', 'customer_communication_text'],
    ['refund_policy', 'refund_or_cancellation_policy_text'],
    ['cancellation_rebuttal', 'refund_or_cancellation_policy_text'],
    ['recurring_transaction_agreement', 'recurring_transaction_agreement_text'],
    ['customer_name', 'additional_evidence_text'],
    ['a_field_of_the_client', 'additional_evidence_text'],
  ])('%s goes to %s', (key, field) => {
    expect(evidenceTextFields({ [key]: 'X-1' })).toEqual({
      [field]: `${key.charAt(0).toUpperCase()}${key.slice(1).replaceAll('_', ' ')}: X-1`,
    });
  });

  it('puts the template text first in the additional evidence, then what no pair claims', () => {
    expect(
      evidenceTextFields({
        uncategorized_text: 'Delivered.',
        customer_name: 'Ada',
        shipping_carrier: 'DHL',
        empty: ' ',
      }),
    ).toEqual({
      proof_of_delivery_or_service_text: 'Shipping carrier: DHL',
      additional_evidence_text: 'Delivered.\n\nCustomer name: Ada',
    });
  });

  it('writes numbers and booleans as text', () => {
    expect(evidenceTextFields({ duplicate_charge_id: 42, receipt: true })).toEqual({
      invoice_showing_distinct_transactions_text: 'Duplicate charge id: 42',
      invoice_or_receipt_text: 'Receipt: true',
    });
  });

  it('cuts text over 500 characters, saying the rest is in the document', () => {
    const texts = evidenceTextFields({ uncategorized_text: 'a'.repeat(600), refund_policy: 'b'.repeat(499) });
    for (const text of Object.values(texts)) {
      expect(text.length).toBeLessThanOrEqual(500);
      expect(text.endsWith('… (continued in the attached document)')).toBe(true);
    }
  });

  it('keeps text of exactly 500 characters whole', () => {
    const text = 'c'.repeat(500);
    expect(evidenceTextFields({ uncategorized_text: text }).additional_evidence_text).toBe(text);
  });

  it('never cuts a character in half', () => {
    const cut = evidenceTextFields({ uncategorized_text: '😀'.repeat(300) }).additional_evidence_text ?? '';
    expect(cut.length).toBeLessThanOrEqual(500);
    expect(cut.isWellFormed()).toBe(true);
  });

  it('has nothing to say for no evidence', () => {
    expect(evidenceTextFields({})).toEqual({});
  });
});
