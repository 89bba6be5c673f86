import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNetwork, networks } from '../../../src/domain/networks.js';
import { sampleDisputeValues } from '../../../src/domain/sample-disputes.js';
import { type DisputeEvent, disputeFromEvent, schemeNames } from '../../../src/processors/adyen/mapping.js';
import { disputeFromRow } from '../../../src/processors/amex/mapping.js';
import { cardTypes as braintreeCardTypes } from '../../../src/processors/braintree/mapping.js';
import { paymentMethods } from '../../../src/processors/checkout/mapping.js';
import { type NetworkSpellings, networkReader, reported } from '../../../src/processors/network-names.js';
import { networkReason } from '../../../src/processors/network-reasons.js';
import { normalizeDispute, stripeBrands, stripeDispute } from '../../../src/processors/stripe/mapping.js';
import { cardTypes as vantivCardTypes } from '../../../src/processors/vantiv/mapping.js';
import { networkNames } from '../../../src/processors/worldpay/mapping.js';

/** Every processor's spellings of the networks (each mapping.ts), with whether it reads variants. */
const tables: [processor: string, spellings: NetworkSpellings, variants: boolean][] = [
  ['stripe', stripeBrands, false],
  ['braintree', braintreeCardTypes, false],
  ['adyen', schemeNames, true],
  ['checkout', paymentMethods, false],
  ['worldpay', networkNames, false],
  ['vantiv', vantivCardTypes, false],
];

describe('network spellings', () => {
  it.each(tables)('%s: every spelling it lists is a network of ours', (_, spellings, variants) => {
    const read = networkReader(spellings, { variants });
    for (const [spelling, network] of Object.entries(spellings)) {
      expect(networks).toContain(network);
      expect(read(spelling)).toBe(network);
      expect(read(` ${spelling.toUpperCase()} `)).toBe(network);
    }
  });

  it('reads a name whatever its case, spacing and punctuation', () => {
    const read = networkReader({ 'American Express': 'amex' });
    expect(['american_express', 'AMERICAN-EXPRESS', 'americanexpress'].map(read)).toEqual([
      'amex',
      'amex',
      'amex',
    ]);
  });

  it('has no network for an unknown name, an empty one, or none', () => {
    const read = networkReader(stripeBrands);
    expect([
      read('cartes_bancaires'),
      read('unknown'),
      read(''),
      read('  '),
      read(null),
      read(undefined),
    ]).toEqual([null, null, null, null, null, null]);
  });

  it('reads variants only where asked, the longest spelling winning', () => {
    const strict = networkReader({ mc: 'mastercard', visa: 'visa' });
    const variants = networkReader(
      { mc: 'mastercard', visa: 'visa', visadankort: 'visa' },
      { variants: true },
    );
    expect(strict('mccredit')).toBeNull();
    expect([variants('mccredit'), variants('visa_applepay'), variants('visadankort')]).toEqual([
      'mastercard',
      'visa',
      'visa',
    ]);
    expect(variants('maestro')).toBeNull();
  });

  it.each(tables)(
    '%s: any name reads as one of the seven networks or none, never an error',
    (_, spellings, variants) => {
      const read = networkReader(spellings, { variants });
      fc.assert(
        fc.property(
          fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...Object.keys(spellings))),
          (name) => {
            const network = read(name);
            expect(network === null || isNetwork(network)).toBe(true);
          },
        ),
      );
    },
  );

  it('keeps a reported code as sent, trimmed; nothing or blanks are none', () => {
    expect([reported(' 10.4 '), reported('F29'), reported(''), reported('   '), reported(null)]).toEqual([
      '10.4',
      'F29',
      null,
      null,
      null,
    ]);
  });
});

describe("a network's code as a reason", () => {
  it.each([
    ['4837', 'mastercard', 'fraudulent'],
    ['F29', 'amex', 'fraudulent'],
    ['13.1', 'visa', 'product_not_received'],
    // Mastercard's table does not know a Visa code: a network given is believed.
    ['13.1', 'mastercard', 'general'],
    // Networks without a table here are read by the code's form.
    ['10.4', 'discover', 'fraudulent'],
    ['10.4', null, 'fraudulent'],
    ['ZZ9', 'visa', 'general'],
  ] as const)('%s of %s is %s', (code, network, reason) => {
    expect(networkReason(code, network)).toBe(reason);
  });
});

describe('what each processor tells', () => {
  const stripe = (card: Record<string, unknown> | null) =>
    normalizeDispute(
      stripeDispute.parse({
        id: 'du_1',
        object: 'dispute',
        amount: 1000,
        currency: 'usd',
        created: 1_700_000_000,
        status: 'warning_needs_response',
        reason: 'fraudulent',
        payment_method_details: card && { type: 'card', card },
      }),
    );

  it("Stripe: the card's brand, its network_reason_code, and the status", () => {
    expect(stripe({ brand: 'amex', network_reason_code: 'F29', case_type: 'inquiry' })).toMatchObject({
      network: 'amex',
      networkReasonCode: 'F29',
      processorStatus: 'warning_needs_response',
    });
    expect(stripe({ brand: 'eftpos_au', network_reason_code: '' })).toMatchObject({
      network: null,
      networkReasonCode: null,
    });
    expect(stripe(null)).toMatchObject({ network: null, networkReasonCode: null });
  });

  const adyen = (overrides: Partial<DisputeEvent>) =>
    disputeFromEvent({
      pspReference: '9915000000000001',
      originalReference: null,
      eventCode: 'NOTIFICATION_OF_CHARGEBACK',
      eventDate: new Date('2026-10-01T09:30:00Z'),
      amount: 1250,
      currency: 'EUR',
      dueBy: null,
      disputedAt: null,
      chargedAt: null,
      chargeback: { reason: null, scheme: null },
      rfi: { reason: null, scheme: null },
      paymentMethod: null,
      shopperReference: null,
      ...overrides,
    });

  it("Adyen: the chargeback's scheme and code, else the request for information's; the event code as status", () => {
    expect(adyen({ chargeback: { reason: '4853', scheme: 'mc' }, paymentMethod: 'mccredit' })).toMatchObject({
      network: 'mastercard',
      networkReasonCode: '4853',
      processorStatus: 'NOTIFICATION_OF_CHARGEBACK',
    });
    expect(
      adyen({ eventCode: 'REQUEST_FOR_INFORMATION', rfi: { reason: '33', scheme: 'visa' } }),
    ).toMatchObject({ network: 'visa', networkReasonCode: '33', processorStatus: 'REQUEST_FOR_INFORMATION' });
    // No scheme code: the payment method (a variant) tells the network.
    expect(
      adyen({ chargeback: { reason: 'C08', scheme: null }, paymentMethod: 'amex_applepay' }),
    ).toMatchObject({
      network: 'amex',
      reason: 'product_not_received',
    });
  });

  it('Amex: always Amex, with the code and the status as the Disputes tool writes them', () => {
    const row = { caseNumber: 'R1', type: 'Inquiry', status: 'Review in Progress', amount: 'USD 1.00' };
    expect(disputeFromRow({ ...row, reasonCode: ' R13 ' })).toMatchObject({
      network: 'amex',
      networkReasonCode: 'R13',
      processorStatus: 'Review in Progress',
    });
    expect(disputeFromRow(row)).toMatchObject({ network: 'amex', networkReasonCode: null });
  });
});

describe('the sample disputes’ network codes (domain/sample-disputes.ts)', () => {
  it('each stand for their reason in the networks’ tables, so test disputes read as mirrored ones would', () => {
    for (const [reason, codes] of Object.entries(sampleDisputeValues.networkCodes)) {
      for (const [network, code] of codes)
        expect(networkReason(code, network), `${network} ${code}`).toBe(reason);
    }
  });
});
