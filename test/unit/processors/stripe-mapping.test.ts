import { describe, expect, it } from 'vitest';
import { evidenceFileCategories } from '../../../src/domain/evidence-files.js';
import type { DisputeState } from '../../../src/domain/states.js';
import { serviceLocalStates } from '../../../src/domain/states.js';
import type { Reason } from '../../../src/domain/vocabulary.js';
import { cutMarker, cutToFit, evidenceForm } from '../../../src/processors/stripe/evidence.js';
import {
  combinedTextLimit,
  normalizeDispute,
  reasonOf,
  type StripeDispute,
  type StripeStatus,
  stripeDispute,
  stripeEvidenceLimits,
  stripeKinds,
  stripeReasons,
  stripeStatuses,
} from '../../../src/processors/stripe/mapping.js';

const created = 1_760_000_000;
const dueBy = created + 14 * 86_400;

/** A dispute as Stripe's API answers it, charge not expanded. */
function stripe(overrides: Partial<Record<keyof StripeDispute, unknown>> = {}): StripeDispute {
  return stripeDispute.parse({
    id: 'du_1Test',
    object: 'dispute',
    amount: 1000,
    currency: 'usd',
    created,
    status: 'needs_response',
    reason: 'fraudulent',
    charge: 'ch_1Test',
    is_charge_refundable: true,
    balance_transactions: [],
    evidence: { customer_name: null, customer_email_address: null, customer_purchase_ip: null },
    evidence_details: { due_by: dueBy, submission_count: 0 },
    metadata: {},
    ...overrides,
  });
}

describe('stripe status mapping', () => {
  it.each<[StripeStatus, DisputeState, 'chargeback' | 'retrieval', boolean]>([
    ['warning_needs_response', 'warning_needs_response', 'retrieval', false],
    ['warning_under_review', 'warning_under_review', 'retrieval', false],
    ['warning_closed', 'warning_closed', 'retrieval', true],
    ['needs_response', 'needs_response', 'chargeback', false],
    ['under_review', 'under_review', 'chargeback', false],
    ['won', 'won', 'chargeback', true],
    ['lost', 'lost', 'chargeback', true],
    ['charge_refunded', 'charge_refunded', 'chargeback', true],
    ['prevented', 'warning_closed', 'chargeback', true],
  ])('%s is %s, a %s, closed: %s', (status, state, kind, closed) => {
    expect(stripeStatuses[status]).toBe(state);
    expect(stripeKinds[status]).toBe(kind);
    const dispute = normalizeDispute(stripe({ status }));
    expect(dispute.state).toBe(state);
    expect(dispute.kind).toBe(kind);
    expect(dispute.closedAt).toEqual(closed ? new Date(created * 1000) : null);
    // Only a dispute a pre-dispute program resolved (Visa RDR and the like) has a resolution.
    expect(dispute.resolution).toBe(status === 'prevented' ? 'rdr' : null);
  });

  it.each([
    [{ visa_compelling_evidence_3: { status: 'qualified', required_actions: [] } }, 'qualified'],
    [
      {
        visa_compelling_evidence_3: {
          status: 'requires_action',
          required_actions: ['missing_customer_identifiers'],
        },
      },
      'requires_action',
    ],
    [{ visa_compelling_evidence_3: { status: 'not_qualified', required_actions: [] } }, 'not_qualified'],
    [{}, null],
    [null, null],
    [undefined, null],
    ['unreadable', null],
  ])("mirrors Stripe's CE 3.0 verdict %j as %j", (eligibility, status) => {
    const dispute = stripe({
      evidence_details: { due_by: dueBy, submission_count: 0, enhanced_eligibility: eligibility },
      enhanced_eligibility_types: ['visa_compelling_evidence_3'],
    });
    expect(normalizeDispute(dispute).compellingEvidenceProcessorStatus).toBe(status);
  });

  it('covers every status of the table, and none is a state of this service', () => {
    expect(Object.keys(stripeStatuses).sort()).toEqual(Object.keys(stripeKinds).sort());
    for (const state of Object.values(stripeStatuses)) expect(serviceLocalStates).not.toContain(state);
  });

  it.each<[StripeStatus, number | null]>([
    ['needs_response', 0],
    ['needs_response', null],
    ['warning_needs_response', 0],
  ])('%s with due_by %s is response_disabled, without a deadline', (status, due) => {
    const dispute = normalizeDispute(
      stripe({ status, evidence_details: { due_by: due, submission_count: 0 } }),
    );
    expect(dispute.state).toBe('response_disabled');
    expect(dispute.dueBy).toBeNull();
  });

  it('a dispute under review without a deadline stays under review', () => {
    const dispute = normalizeDispute(stripe({ status: 'under_review', evidence_details: { due_by: 0 } }));
    expect(dispute.state).toBe('under_review');
  });

  it('refuses a status Stripe does not publish', () => {
    expect(stripeDispute.safeParse({ ...stripe(), status: 'escalated' }).success).toBe(false);
  });
});

describe('stripe reason mapping', () => {
  it.each<[string, Reason]>([
    ['bank_cannot_process', 'bank_cannot_process'],
    ['check_returned', 'insufficient_funds'],
    ['credit_not_processed', 'credit_not_processed'],
    ['customer_initiated', 'customer_initiated'],
    ['debit_not_authorized', 'debit_not_authorized'],
    ['duplicate', 'duplicate'],
    ['fraudulent', 'fraudulent'],
    ['general', 'general'],
    ['incorrect_account_details', 'incorrect_account_details'],
    ['insufficient_funds', 'insufficient_funds'],
    ['noncompliant', 'general'],
    ['product_not_received', 'product_not_received'],
    ['product_unacceptable', 'product_unacceptable'],
    ['subscription_canceled', 'subscription_canceled'],
    ['unrecognized', 'unrecognized'],
  ])('%s is %s', (reason, expected) => {
    expect(stripeReasons[reason]).toBe(expected);
    expect(normalizeDispute(stripe({ reason })).reason).toBe(expected);
  });

  it('has a row for every reason Stripe publishes, and nothing else', () => {
    expect(Object.keys(stripeReasons)).toHaveLength(15);
  });

  it.each(['a_new_category', 'constructor', '__proto__'])('%s, unknown, is general', (reason) => {
    expect(reasonOf(reason)).toBe('general');
  });
});

describe('stripe dispute fields', () => {
  const withdrawal = { amount: -1000, fee: 1500, net: -2500, currency: 'USD', created: created + 60 };
  const reinstatement = {
    amount: 1000,
    fee: -1500,
    net: 2500,
    currency: 'USD',
    created: created + 90 * 86_400,
  };

  it('reads the withdrawal: the fee, the amount reversed and the total with the fee, in its currency', () => {
    const dispute = normalizeDispute(stripe({ currency: 'EUR', balance_transactions: [withdrawal] }));
    expect(dispute).toMatchObject({
      amount: 1000,
      currency: 'eur',
      fee: 1500,
      reversalAmount: 1000,
      reversalTotal: 2500,
      reversalCurrency: 'usd',
    });
  });

  it('an inquiry has no withdrawal: no fee, no reversal', () => {
    const dispute = normalizeDispute(stripe({ status: 'warning_needs_response' }));
    expect(dispute).toMatchObject({
      fee: null,
      reversalAmount: null,
      reversalTotal: null,
      reversalCurrency: null,
    });
  });

  it.each<[StripeStatus, unknown[], number]>([
    ['won', [withdrawal, reinstatement], reinstatement.created],
    ['lost', [withdrawal], withdrawal.created],
    ['warning_closed', [], created],
  ])('a %s dispute is closed at the latest moment it records', (status, transactions, closed) => {
    const dispute = normalizeDispute(stripe({ status, balance_transactions: transactions }));
    expect(dispute.closedAt).toEqual(new Date(closed * 1000));
  });

  it('reads dates, deadline, charge id and refundability', () => {
    expect(normalizeDispute(stripe())).toMatchObject({
      id: 'du_1Test',
      disputedAt: new Date(created * 1000),
      dueBy: new Date(dueBy * 1000),
      charge: 'ch_1Test',
      isChargeRefundable: true,
      chargedAt: null,
      customer: null,
    });
  });

  it('reads the expanded charge: when, who, the card checks and the statement descriptor', () => {
    const charge = {
      id: 'ch_1Test',
      amount: 1000,
      currency: 'usd',
      created: created - 86_400,
      customer: { id: 'cus_1Test', object: 'customer' },
      receipt_email: 'receipt@example.com',
      statement_descriptor: 'SHOP',
      calculated_statement_descriptor: 'SHOP* ORDER 1',
      billing_details: { name: 'Ada Lovelace', email: null, address: { postal_code: 'N1 9GU' } },
      payment_method_details: {
        card: {
          checks: { address_line1_check: 'unavailable', address_postal_code_check: null, cvc_check: 'new' },
        },
      },
    };
    expect(normalizeDispute(stripe({ charge }))).toMatchObject({
      charge: 'ch_1Test',
      chargedAt: new Date((created - 86_400) * 1000),
      customer: 'cus_1Test',
      customerName: 'Ada Lovelace',
      customerEmail: 'receipt@example.com',
      addressZip: 'N1 9GU',
      addressLine1Check: 'unavailable',
      addressZipCheck: null,
      cvcCheck: null,
      statementDescriptor: 'SHOP* ORDER 1',
    });
  });

  it("prefers the evidence's customer details to the charge's", () => {
    const dispute = normalizeDispute(
      stripe({
        evidence: {
          customer_name: 'A. Lovelace',
          customer_email_address: 'ada@example.com',
          customer_purchase_ip: '192.0.2.7',
        },
        charge: {
          id: 'ch_1Test',
          amount: 1000,
          currency: 'usd',
          created,
          billing_details: { name: 'Someone Else', email: 'else@example.com' },
        },
      }),
    );
    expect(dispute).toMatchObject({
      customerName: 'A. Lovelace',
      customerEmail: 'ada@example.com',
      customerPurchaseIp: '192.0.2.7',
    });
  });
});

describe('stripe evidence limits', () => {
  it('slots each category with a Stripe evidence file field of its name; the others go in the document', () => {
    expect(
      Object.fromEntries(
        evidenceFileCategories.map((category) => [category, stripeEvidenceLimits.slots[category] ?? null]),
      ),
    ).toEqual({
      receipt: 'receipt',
      shipping_documentation: 'shipping_documentation',
      customer_communication: 'customer_communication',
      customer_signature: 'customer_signature',
      refund_policy: 'refund_policy',
      cancellation_policy: 'cancellation_policy',
      service_documentation: 'service_documentation',
      duplicate_charge_documentation: 'duplicate_charge_documentation',
      access_activity_log: null,
      uncategorized: null,
    });
  });

  it('takes PDF, PNG and JPEG of 5 MB each, with no documented total or page limit', () => {
    expect(stripeEvidenceLimits).toMatchObject({
      types: ['pdf', 'png', 'jpg'],
      maxFileBytes: 5_242_880,
      maxTotalBytes: null,
      maxPages: null,
    });
  });

  it('keeps 20,000 characters in the long text fields and in uncategorized_text, 150,000 in the others', () => {
    expect(stripeEvidenceLimits.textLimits).toMatchObject({
      product_description: 20_000,
      access_activity_log: 20_000,
      uncategorized_text: 20_000,
      customer_name: 150_000,
      shipping_tracking_number: 150_000,
      '*': 20_000,
    });
  });
});

describe('stripe evidence form', () => {
  it('puts named fields in their own, the rest after the template text, the file and the marker', () => {
    expect(
      evidenceForm(
        {
          customer_name: 'Ada Lovelace',
          shipping_carrier: 'Royal Mail',
          order_number: 'A-17',
          gift: false,
          empty: '  ',
          uncategorized_text: 'The order was delivered.',
        },
        'file_1Test',
        { receipt: 'file_1Receipt', customer_signature: 'file_1Signed' },
        'sub_1Test',
      ),
    ).toEqual({
      'evidence[customer_name]': 'Ada Lovelace',
      'evidence[shipping_carrier]': 'Royal Mail',
      'evidence[uncategorized_text]': 'The order was delivered.\n\norder_number: A-17\ngift: false',
      'evidence[receipt]': 'file_1Receipt',
      'evidence[customer_signature]': 'file_1Signed',
      'evidence[uncategorized_file]': 'file_1Test',
      'metadata[rebuttal_submission]': 'sub_1Test',
      submit: 'true',
    });
  });

  it('cuts each long field to 20,000 and keeps the combined text within 150,000 characters', () => {
    const long = 'y'.repeat(30_000);
    const form = evidenceForm(
      {
        access_activity_log: long,
        cancellation_policy_disclosure: long,
        cancellation_rebuttal: long,
        duplicate_charge_explanation: long,
        product_description: long,
        refund_policy_disclosure: long,
        refund_refusal_explanation: long,
        billing_address: long,
        uncategorized_text: long,
      },
      'file_1Test',
      {},
      'sub_1Test',
    );
    const text = Object.entries(form).filter(
      ([key]) => key.startsWith('evidence[') && key !== 'evidence[uncategorized_file]',
    );
    expect(form['evidence[access_activity_log]']).toHaveLength(20_000);
    expect(form['evidence[billing_address]']).toHaveLength(10_000);
    expect(form['evidence[uncategorized_text]']).toBeUndefined();
    expect(text.reduce((total, [, value]) => total + value.length, 0)).toBe(combinedTextLimit);
  });

  it.each([
    ['short text', 'abc', 10, 'abc'],
    ['text at the limit', 'a'.repeat(60), 60, 'a'.repeat(60)],
    ['text over the limit', 'a'.repeat(100), 60, `${'a'.repeat(60 - cutMarker.length)}${cutMarker}`],
    ['a limit below the marker', 'a'.repeat(100), 10, ''],
  ])('fits %s', (_name, text, max, expected) => {
    expect(cutToFit(text, max)).toBe(expected);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(100)}`;
    const fitted = cutToFit(text, 10 + cutMarker.length);
    expect(fitted).toBe(`${'a'.repeat(9)}${cutMarker}`);
    expect(fitted.isWellFormed()).toBe(true);
  });
});
