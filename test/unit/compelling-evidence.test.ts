import { describe, expect, it } from 'vitest';
import { type CompellingEvidenceInput, compellingEvidenceOf } from '../../src/domain/compelling-evidence.js';
import type { PastPayment } from '../../src/domain/evidence.js';

const chargedAt = new Date('2026-06-30T15:00:00Z');
const daysBefore = (days: number, hour = 12) => Math.floor(Date.UTC(2026, 5, 30 - days, hour) / 1000);

const ip = '203.0.113.7';
const device = 'device-7f3a9c2e1b4d';
const address = '1 Main St, Springfield, IL 62701, US';

const prior = (id: string, days: number, extra: Partial<PastPayment> = {}): PastPayment => ({
  id,
  amount: 2500,
  currency: 'usd',
  charged_at: daysBefore(days),
  ip_address: ip,
  device_id: device,
  item_description: 'Annual plan',
  ...extra,
});

const base: CompellingEvidenceInput = {
  network: 'visa',
  reason: 'fraudulent',
  networkReasonCode: '10.4',
  charge: 'ch_disputed',
  chargedAt,
  customerPurchaseIp: ip,
  customerEmail: 'ada@example.com',
  fields: {
    customer_device_id: device,
    product_description: 'Annual plan',
    merchandise_or_services: 'services',
  },
  products: [],
  pastPayments: [prior('ch_a', 150), prior('ch_b', 200)],
};

const verdict = (change: Partial<CompellingEvidenceInput>) => compellingEvidenceOf({ ...base, ...change });

describe('Visa CE 3.0: where the program applies', () => {
  it.each([
    ['a Visa fraud dispute with code 10.4', {}, true],
    ['a Visa fraud dispute whose processor gives no code', { networkReasonCode: null }, true],
    ['code 10.4 written with spaces', { networkReasonCode: ' 10.4 ' }, true],
    ['another Visa fraud code (10.5)', { networkReasonCode: '10.5' }, false],
    ['Mastercard', { network: 'mastercard', networkReasonCode: '4837' }, false],
    ['no network known', { network: null }, false],
    ['a Visa dispute of another reason', { reason: 'product_not_received' }, false],
  ] as const)('%s', (_, change, applies) => {
    expect(verdict(change) !== null).toBe(applies);
  });
});

describe('Visa CE 3.0: the window of 120 to 365 calendar days', () => {
  it.each([
    [119, 200, 'requires_action'],
    [120, 200, 'qualified'],
    [365, 200, 'qualified'],
    [366, 200, 'requires_action'],
    [30, 40, 'requires_action'],
  ] as const)('payments %i and %i days before: %s', (first, second, status) => {
    const result = verdict({ pastPayments: [prior('ch_a', first), prior('ch_b', second)] });
    expect(result?.status).toBe(status);
    if (status === 'requires_action') {
      expect(result?.required_actions).toEqual(['missing_prior_undisputed_transactions']);
    }
  });

  it('counts calendar days in UTC, not hours: 120 days before at 23:59 counts, as at 00:00', () => {
    const late = { ...prior('ch_a', 120), charged_at: daysBefore(120, 23) };
    const early = { ...prior('ch_b', 365), charged_at: daysBefore(365, 0) };
    expect(verdict({ pastPayments: [late, early] })?.status).toBe('qualified');
  });

  it('reads charged_at as Unix seconds, digits, or a date-time text', () => {
    const asText = { ...prior('ch_a', 150), charged_at: '2026-01-31T10:00:00Z' };
    const asDigits = { ...prior('ch_b', 200), charged_at: String(daysBefore(200)) };
    expect(verdict({ pastPayments: [asText, asDigits] })?.status).toBe('qualified');
    const unreadable = { ...prior('ch_b', 200), charged_at: 'last spring' };
    expect(verdict({ pastPayments: [asText, unreadable] })?.status).toBe('requires_action');
  });

  it('never takes the disputed charge as its own prior payment', () => {
    const result = verdict({ pastPayments: [prior('ch_disputed', 150), prior('ch_b', 200)] });
    expect(result?.required_actions).toEqual(['missing_prior_undisputed_transactions']);
  });

  it('needs the disputed payment date to place the window', () => {
    expect(verdict({ chargedAt: null })).toEqual({
      program: 'visa_ce3',
      status: 'requires_action',
      required_actions: ['missing_prior_undisputed_transactions', 'missing_disputed_transaction_date'],
      matched: [],
      prior_payments: [],
    });
  });
});

describe('Visa CE 3.0: the elements that match', () => {
  it('qualifies on IP and device, naming the pair and what matched', () => {
    expect(verdict({})).toEqual({
      program: 'visa_ce3',
      status: 'qualified',
      required_actions: [],
      matched: ['ip_address', 'device_id'],
      prior_payments: ['ch_a', 'ch_b'],
    });
  });

  it.each([
    [
      'IP and shipping address',
      { fields: { ...base.fields, customer_device_id: null, shipping_address: address } },
      [
        prior('ch_a', 150, { device_id: undefined, shipping_address: address }),
        prior('ch_b', 200, { shipping_address: ` ${address.toUpperCase()} ` }),
      ],
      ['ip_address', 'shipping_address'],
    ],
    [
      'device and account id',
      { customerPurchaseIp: null, fields: { ...base.fields, customer_account_id: 'user_42' } },
      [prior('ch_a', 150, { user_id: 'user_42' }), prior('ch_b', 200, { user_id: 'user_42' })],
      ['device_id', 'customer_account_id'],
    ],
    [
      'IP and the email used as the login',
      { fields: { ...base.fields, customer_device_id: null, customer_email: 'Ada@Example.com' } },
      [prior('ch_a', 150, { email: 'ada@example.com' }), prior('ch_b', 200, { email: 'ada@example.com' })],
      ['ip_address', 'customer_account_id'],
    ],
    [
      "IP and the processor's customer email when the fields hold none",
      { fields: { ...base.fields, customer_device_id: null } },
      [prior('ch_a', 150, { email: 'ada@example.com' }), prior('ch_b', 200, { email: 'ada@example.com' })],
      ['ip_address', 'customer_account_id'],
    ],
  ] as const)('qualifies on %s', (_, change, pastPayments, matched) => {
    const result = verdict({ ...change, pastPayments: [...pastPayments] });
    expect(result?.status).toBe('qualified');
    expect(result?.matched).toEqual(matched);
  });

  it('does not qualify on two elements when neither is the IP or the device', () => {
    const result = verdict({
      customerPurchaseIp: null,
      fields: {
        ...base.fields,
        customer_device_id: null,
        customer_account_id: 'user_42',
        shipping_address: address,
      },
      pastPayments: [
        prior('ch_a', 150, { user_id: 'user_42', shipping_address: address }),
        prior('ch_b', 200, { user_id: 'user_42', shipping_address: address }),
      ],
    });
    expect(result?.status).toBe('requires_action');
    expect(result?.required_actions).toEqual(['missing_customer_identifiers']);
    expect(result?.matched).toEqual(['shipping_address', 'customer_account_id']);
  });

  it('is not qualified when the earlier payments give other values: nothing to add can change that', () => {
    const result = verdict({
      pastPayments: [
        prior('ch_a', 150, { ip_address: '198.51.100.1' }),
        prior('ch_b', 200, { device_id: 'another-device-00' }),
      ],
    });
    expect(result).toEqual({
      program: 'visa_ce3',
      status: 'not_qualified',
      required_actions: [],
      matched: [],
      prior_payments: ['ch_a', 'ch_b'],
    });
  });

  it('asks for identifiers when the earlier payments only lack them', () => {
    const result = verdict({
      pastPayments: [
        prior('ch_a', 150, { device_id: undefined }),
        prior('ch_b', 200, { device_id: undefined }),
      ],
    });
    expect(result?.status).toBe('requires_action');
    expect(result?.required_actions).toEqual(['missing_customer_identifiers']);
    expect(result?.matched).toEqual(['ip_address']);
  });

  it('asks for identifiers when the disputed payment has only one', () => {
    const result = verdict({ fields: { ...base.fields, customer_device_id: null } });
    expect(result?.required_actions).toEqual(['missing_customer_identifiers']);
  });

  it('picks a qualifying pair among many, the one matching most, newer on a tie', () => {
    const result = verdict({
      pastPayments: [
        prior('ch_recent', 30),
        prior('ch_other_ip', 130, { ip_address: '198.51.100.1', device_id: 'x-device-000000' }),
        prior('ch_a', 150),
        prior('ch_b', 200),
        prior('ch_c', 300),
      ],
    });
    expect(result?.status).toBe('qualified');
    expect(result?.prior_payments).toEqual(['ch_a', 'ch_b']);
  });
});

describe('Visa CE 3.0: descriptions', () => {
  it.each([
    [
      'the disputed payment described by neither a field nor products',
      { fields: { ...base.fields, product_description: null } },
      ['missing_disputed_transaction_description'],
    ],
    [
      'merchandise or services not said',
      { fields: { ...base.fields, merchandise_or_services: 'both' } },
      ['missing_merchandise_or_services'],
    ],
    [
      'an earlier payment without its item description',
      { pastPayments: [prior('ch_a', 150, { item_description: ' ' }), prior('ch_b', 200)] },
      ['missing_prior_undisputed_transaction_description'],
    ],
  ] as const)('%s: requires action', (_, change, actions) => {
    const result = verdict(change as Partial<CompellingEvidenceInput>);
    expect(result?.status).toBe('requires_action');
    expect(result?.required_actions).toEqual(actions);
  });

  it('takes the products as the description of the disputed payment', () => {
    const products = [{ name: 'Annual plan', quantity: 1, amount: 2500 }];
    expect(verdict({ fields: { ...base.fields, product_description: null }, products })?.status).toBe(
      'qualified',
    );
  });
});
