import { describe, expect, it, vi } from 'vitest';
import { type DisputeRecord, formatTimestamp, toDisputeObject } from '../../src/domain/disputes.js';
import type { TemplateShape } from '../../src/domain/templates.js';
import { disputeAttributes } from '../helpers/contract.js';
import { bareDispute } from '../helpers/evidence-documents.js';

describe('domain/disputes.js', () => {
  it('loads on its own, as the first module imported (no import cycle with templates.js)', async () => {
    vi.resetModules();
    await expect(import('../../src/domain/disputes.js')).resolves.toHaveProperty('toDisputeObject');
  });
});

const contractKeys: readonly string[] = disputeAttributes;

/** A dispute with every attribute set. */
function fullDispute(overrides: Partial<DisputeRecord> = {}): DisputeRecord {
  return bareDispute({
    id: 'dp_full',
    livemode: true,
    state: 'submitted',
    reason: 'fraudulent',
    kind: 'pre_arbitration',
    source: 'stripe',
    processor: 'stripe',
    account: 'default',
    chargedAt: new Date('2021-02-01T08:09:10.123Z'),
    disputedAt: new Date('2021-02-15T00:00:00.000Z'),
    dueBy: new Date('2021-03-10T23:59:59.999Z'),
    submittedAt: new Date('2021-03-02T10:00:00.000Z'),
    closedAt: new Date('2021-04-01T00:00:01.000Z'),
    submittedCount: 2,
    template: 'tpl_goods',
    fields: { order_id: '123', refund_amount: 500 },
    products: [{ name: 'Widget', quantity: 1, amount: 1999 }],
    correspondence: [{ to: 'a@example.com', from: 'b@example.com', subject: 'Re: order', body: 'Shipped.' }],
    pastPayments: [{ id: 'ch_0', amount: 1000, currency: 'usd', charged_at: 1_600_000_000 }],
    evidenceFiles: [{ file: 'file_0123456789abcdefghij', category: 'receipt', description: 'The receipt' }],
    charge: 'ch_123',
    isChargeRefundable: false,
    amount: 1999,
    currency: 'usd',
    fee: 1500,
    reversalAmount: 1999,
    reversalTotal: 3499,
    reversalCurrency: 'usd',
    customer: 'cus_123',
    customerName: 'Ada Lovelace',
    customerEmail: 'ada@example.com',
    customerPurchaseIp: '203.0.113.7',
    addressZip: '94110',
    addressLine1Check: 'pass',
    addressZipCheck: 'fail',
    cvcCheck: 'unchecked',
    statementDescriptor: 'ACME STORE',
    network: 'visa',
    networkReasonCode: '10.4',
    processorStatus: 'under_review',
    resolution: 'alert_refund',
    alert: 'issfr_123',
    compellingEvidenceProcessorStatus: 'requires_action',
    accountId: 'acct_direct',
    referenceUrl: 'https://example.com/orders/123',
    createdAt: new Date('2021-02-15T00:00:05.000Z'),
    updatedAt: new Date('2021-03-02T10:00:00.500Z'),
    ...overrides,
  });
}

const serverTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('toDisputeObject returns the dispute object of docs/api.md, "The dispute object"', () => {
  it('has exactly the contract fields plus object, livemode and url', () => {
    expect(Object.keys(toDisputeObject(fullDispute(), null)).sort()).toEqual([...contractKeys].sort());
  });

  it('has every field even when the dispute has nothing optional', () => {
    expect(Object.keys(toDisputeObject(bareDispute(), null)).sort()).toEqual([...contractKeys].sort());
  });

  it('gives null for every absent value, {} for fields and missing_fields, [] for the arrays', () => {
    const object = toDisputeObject(bareDispute(), null);
    expect(object).toMatchObject({
      charged_at: null,
      disputed_at: null,
      due_by: null,
      submitted_at: null,
      closed_at: null,
      template: null,
      fields: {},
      missing_fields: {},
      products: [],
      correspondence: [],
      past_payments: [],
      evidence_files: [],
      charge: null,
      is_charge_refundable: null,
      amount: null,
      currency: null,
      fee: null,
      reversal_amount: null,
      reversal_total: null,
      reversal_currency: null,
      customer: null,
      customer_name: null,
      customer_email: null,
      customer_purchase_ip: null,
      address_zip: null,
      address_line1_check: null,
      address_zip_check: null,
      cvc_check: null,
      statement_descriptor: null,
      account_id: null,
      processor: null,
      network: null,
      network_reason_code: null,
      processor_status: null,
      resolution: null,
      alert: null,
      compelling_evidence: null,
      account: null,
      reference_url: null,
    });
  });

  it('carries every attribute of a full dispute under its contract name', () => {
    expect(toDisputeObject(fullDispute(), null)).toEqual({
      object: 'dispute',
      id: 'dp_full',
      state: 'submitted',
      reason: 'fraudulent',
      charged_at: '2021-02-01T08:09:10',
      disputed_at: '2021-02-15T00:00:00',
      due_by: '2021-03-10T23:59:59',
      submitted_at: '2021-03-02T10:00:00',
      closed_at: '2021-04-01T00:00:01',
      submitted_count: 2,
      template: 'tpl_goods',
      fields: { order_id: '123', refund_amount: 500 },
      missing_fields: {},
      products: [{ name: 'Widget', quantity: 1, amount: 1999 }],
      correspondence: [
        { to: 'a@example.com', from: 'b@example.com', subject: 'Re: order', body: 'Shipped.' },
      ],
      past_payments: [{ id: 'ch_0', amount: 1000, currency: 'usd', charged_at: 1_600_000_000 }],
      evidence_files: [
        { file: 'file_0123456789abcdefghij', category: 'receipt', description: 'The receipt' },
      ],
      charge: 'ch_123',
      is_charge_refundable: false,
      amount: 1999,
      currency: 'usd',
      fee: 1500,
      reversal_amount: 1999,
      reversal_total: 3499,
      reversal_currency: 'usd',
      customer: 'cus_123',
      customer_name: 'Ada Lovelace',
      customer_email: 'ada@example.com',
      customer_purchase_ip: '203.0.113.7',
      address_zip: '94110',
      address_line1_check: 'pass',
      address_zip_check: 'fail',
      cvc_check: 'unchecked',
      statement_descriptor: 'ACME STORE',
      account_id: 'acct_direct',
      created: '2021-02-15T00:00:05',
      updated: '2021-03-02T10:00:00',
      source: 'stripe',
      processor: 'stripe',
      kind: 'pre_arbitration',
      network: 'visa',
      network_reason_code: '10.4',
      processor_status: 'under_review',
      resolution: 'alert_refund',
      alert: 'issfr_123',
      compelling_evidence: {
        program: 'visa_ce3',
        status: 'requires_action',
        required_actions: ['missing_prior_undisputed_transactions'],
        matched: [],
        prior_payments: [],
        processor_status: 'requires_action',
      },
      account: 'default',
      reference_url: 'https://example.com/orders/123',
      livemode: true,
      url: '/v1/disputes/dp_full',
    });
  });

  it.each([
    'charged_at',
    'disputed_at',
    'due_by',
    'submitted_at',
    'closed_at',
    'created',
    'updated',
  ] as const)('formats %s as YYYY-MM-DDTHH:MM:SS in UTC without a zone', (key) => {
    const value = toDisputeObject(fullDispute(), null)[key];
    expect(value).toMatch(serverTimestamp);
  });

  it('has url /v1/disputes/<id> by default and the request path when given', () => {
    expect(toDisputeObject(bareDispute({ id: 'dp_9' }), null).url).toBe('/v1/disputes/dp_9');
    expect(toDisputeObject(bareDispute({ id: 'dp_9' }), null, '/v1/disputes/dp_9/submit').url).toBe(
      '/v1/disputes/dp_9/submit',
    );
  });

  it('decides compelling_evidence from the dispute as it stands, null where Visa CE 3.0 does not apply', () => {
    const earlier = { amount: 1000, currency: 'usd', ip_address: '203.0.113.7', email: 'ADA@example.com' };
    const qualifying = fullDispute({
      fields: { product_description: 'Widget', merchandise_or_services: 'merchandise' },
      pastPayments: [
        { ...earlier, id: 'ch_a', charged_at: '2020-09-01T00:00:00Z', item_description: 'Widget' },
        { ...earlier, id: 'ch_b', charged_at: '2020-06-01T00:00:00Z', item_description: 'Gadget' },
      ],
    });
    expect(toDisputeObject(qualifying, null).compelling_evidence).toEqual({
      program: 'visa_ce3',
      status: 'qualified',
      required_actions: [],
      matched: ['ip_address', 'customer_account_id'],
      prior_payments: ['ch_a', 'ch_b'],
      processor_status: 'requires_action',
    });
    expect(toDisputeObject({ ...qualifying, network: 'mastercard' }, null).compelling_evidence).toBeNull();
    expect(toDisputeObject({ ...qualifying, reason: 'general' }, null).compelling_evidence).toBeNull();
    expect(
      toDisputeObject({ ...qualifying, networkReasonCode: '13.1' }, null).compelling_evidence,
    ).toBeNull();
  });

  it('carries livemode false for a test-mode dispute', () => {
    expect(toDisputeObject(bareDispute({ livemode: false }), null).livemode).toBe(false);
  });
});

describe('formatTimestamp', () => {
  it.each([
    ['2021-03-01T12:34:56.000Z', '2021-03-01T12:34:56'],
    ['2021-03-01T12:34:56.999Z', '2021-03-01T12:34:56'],
    ['2021-03-01T12:34:56+02:00', '2021-03-01T10:34:56'],
    ['2021-03-01T01:00:00+02:00', '2021-02-28T23:00:00'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00'],
  ])('formats %s as %s', (input, expected) => {
    expect(formatTimestamp(new Date(input))).toBe(expected);
  });

  it('gives null for an absent value', () => {
    expect(formatTimestamp(null)).toBeNull();
  });
});

describe('toDisputeObject: missing_fields', () => {
  const template: TemplateShape = {
    id: 'tpl_goods',
    fields: [
      { key: 'order_id', type: 'text', required: true, description: null },
      { key: 'tracking_url', type: 'url', required: true, description: null },
      { key: 'note', type: 'text', required: false, description: null },
    ],
  };

  it('lists the required template fields that are not provided, with their types', () => {
    const object = toDisputeObject(
      bareDispute({ template: 'tpl_goods', fields: { order_id: '1' } }),
      template,
    );
    expect(object.missing_fields).toEqual({ tracking_url: 'url' });
  });

  it('is {} when every required field is provided', () => {
    const object = toDisputeObject(
      bareDispute({ template: 'tpl_goods', fields: { order_id: '1', tracking_url: 'https://x.example' } }),
      template,
    );
    expect(object.missing_fields).toEqual({});
  });

  it.each<[string, Partial<DisputeRecord>]>([
    ['customer_name', { customerName: 'Ada Lovelace' }],
    ['customer_email', { customerEmail: 'ada@example.com' }],
    ['customer_purchase_ip', { customerPurchaseIp: '203.0.113.7' }],
    ['charge', { charge: 'ch_123' }],
    ['amount', { amount: 1999 }],
    ['currency', { currency: 'usd' }],
    ['charged_at', { chargedAt: new Date('2021-02-01T00:00:00Z') }],
    ['statement_descriptor', { statementDescriptor: 'ACME STORE' }],
    ['address_zip', { addressZip: '94110' }],
  ])('does not list a required %s field when the dispute attribute of that name is set', (key, attribute) => {
    const withField: TemplateShape = {
      id: 'tpl_attr',
      fields: [{ key, type: 'text', required: true, description: null }],
    };
    expect(toDisputeObject(bareDispute({ template: 'tpl_attr' }), withField).missing_fields).toEqual({
      [key]: 'text',
    });
    expect(
      toDisputeObject(bareDispute({ template: 'tpl_attr', ...attribute }), withField).missing_fields,
    ).toEqual({});
  });
});
