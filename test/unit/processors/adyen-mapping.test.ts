import { describe, expect, it } from 'vitest';
import {
  type DefenseReason,
  type DisputeEvent,
  defenseFor,
  disputeFromEvent,
  eventRules,
  evidenceLimits,
  statusStates,
} from '../../../src/processors/adyen/mapping.js';

const raised = new Date('2026-10-01T09:30:00Z');

function event(overrides: Partial<DisputeEvent> = {}): DisputeEvent {
  return {
    pspReference: '9915000000000001',
    originalReference: '8815000000000001',
    eventCode: 'NOTIFICATION_OF_CHARGEBACK',
    eventDate: raised,
    amount: 1250,
    currency: 'EUR',
    dueBy: new Date('2026-10-21T09:30:00Z'),
    disputedAt: null,
    chargedAt: null,
    chargeback: { reason: '10.4', scheme: 'visa' },
    rfi: { reason: null, scheme: null },
    paymentMethod: 'visa',
    shopperReference: null,
    ...overrides,
  };
}

describe('adyen disputeStatus to state', () => {
  it.each([
    ['Undefended', 'needs_response', 'warning_needs_response'],
    ['Pending', 'under_review', 'warning_under_review'],
    ['Expired', 'lost', 'warning_closed'],
  ] as const)('%s is %s for a chargeback and %s for a request for information', (status, chargeback, rfi) => {
    expect(statusStates[status]).toEqual({ chargeback, retrieval: rfi });
  });
});

describe('adyen event codes', () => {
  // [event code, the state, the kind, whether the event date is when it was disputed]
  const rows: [string, string, string, boolean][] = [
    ['REQUEST_FOR_INFORMATION', 'warning_needs_response', 'retrieval', true],
    ['NOTIFICATION_OF_CHARGEBACK', 'needs_response', 'chargeback', true],
    ['CHARGEBACK', 'needs_response', 'chargeback', true],
    ['INFORMATION_SUPPLIED', 'under_review', 'chargeback', false],
    ['ISSUER_COMMENTS', 'under_review', 'chargeback', false],
    ['DISPUTE_DEFENSE_PERIOD_ENDED', 'lost', 'chargeback', false],
    ['ISSUER_RESPONSE_TIMEFRAME_EXPIRED', 'won', 'chargeback', false],
    ['CHARGEBACK_REVERSED', 'won', 'chargeback', false],
    ['SECOND_CHARGEBACK', 'lost', 'pre_arbitration', true],
    ['PREARBITRATION_WON', 'won', 'pre_arbitration', false],
    ['PREARBITRATION_LOST', 'lost', 'pre_arbitration', false],
  ];

  it('every dispute event code has a row here', () => {
    expect(new Set(rows.map(([code]) => code))).toEqual(new Set(Object.keys(eventRules)));
  });

  it.each(rows)('%s is %s, a %s', (eventCode, state, kind, opens) => {
    const dispute = disputeFromEvent(event({ eventCode }));
    expect(dispute.state).toBe(state);
    expect(dispute.kind).toBe(kind);
    expect(dispute.disputedAt).toEqual(opens ? raised : null);
    const closed = ['won', 'lost', 'warning_closed'].includes(state);
    expect(dispute.closedAt).toEqual(closed ? raised : null);
  });

  it('an event that names only RFI codes is a retrieval: an answered request for information is under review', () => {
    const answered = event({
      eventCode: 'INFORMATION_SUPPLIED',
      chargeback: { reason: null, scheme: null },
      rfi: { reason: '33', scheme: 'visa' },
    });
    expect(disputeFromEvent(answered)).toMatchObject({
      kind: 'retrieval',
      state: 'warning_under_review',
      reason: 'retrieved',
    });
  });

  it('the report gives when the dispute was raised, whatever the event', () => {
    const disputedAt = new Date('2026-09-30T12:00:00Z');
    expect(disputeFromEvent(event({ eventCode: 'CHARGEBACK_REVERSED', disputedAt })).disputedAt).toEqual(
      disputedAt,
    );
  });
});

describe('adyen reasons', () => {
  it.each([
    ['visa', '10.4', null, 'fraudulent'],
    ['visa', '13.1', null, 'product_not_received'],
    ['mc', '4853', null, 'product_unacceptable'],
    ['mc', '4837', null, 'fraudulent'],
    ['amex', 'F29', null, 'fraudulent'],
    ['amex', 'C08', null, 'product_not_received'],
    [null, '4834', 'mc', 'duplicate'],
    ['visa', '99.9', null, 'general'],
    [null, null, 'visa', 'general'],
  ])('scheme %s code %s (payment method %s) is %s', (scheme, reason, paymentMethod, expected) => {
    const dispute = disputeFromEvent(event({ chargeback: { reason, scheme }, paymentMethod }));
    expect(dispute.reason).toBe(expected);
  });

  it('a request for information is retrieved', () => {
    expect(disputeFromEvent(event({ eventCode: 'REQUEST_FOR_INFORMATION' })).reason).toBe('retrieved');
  });
});

describe('adyen disputes', () => {
  it('carry the payment as the charge, the deadline, the shopper, and the amount as Adyen gives it', () => {
    const dispute = disputeFromEvent(event({ shopperReference: 'shopper-1', currency: 'KWD', amount: 3125 }));
    expect(dispute).toMatchObject({
      id: '9915000000000001',
      charge: '8815000000000001',
      dueBy: new Date('2026-10-21T09:30:00Z'),
      customer: 'shopper-1',
      amount: 3125,
      currency: 'kwd',
    });
  });
});

describe('adyen defense reason choice', () => {
  const reason = (code: string, ...documents: [string, string][]): DefenseReason => ({
    defenseReasonCode: code,
    defenseDocumentTypes: documents.map(([type, level]) => ({
      defenseDocumentTypeCode: type,
      requirementLevel: level,
    })),
  });
  const supplyDefenseMaterial = reason(
    'SupplyDefenseMaterial',
    ['TIDorInvoice', 'Optional'],
    ['DefenseMaterial', 'Required'],
    ['AlternativeDefenseMaterial', 'AlternativeRequired'],
  );
  const twoDocuments = reason(
    'GoodsOrServicesProvided',
    ['ProofOfDelivery', 'Required'],
    ['Invoice', 'Required'],
  );
  const alternative = reason(
    'MerchandiseReceived',
    ['ProofOfDelivery', 'Required'],
    ['Invoice', 'Required'],
    ['AlternativeDefenseMaterial', 'AlternativeRequired'],
  );
  const oneOther = reason('CreditOrCancellationPolicyProperlyDisclosed', ['CancellationPolicy', 'Required']);
  const anyOf = reason('InvalidChargeback', ['Receipt', 'OneOrMore'], ['DefenseMaterial', 'OneOrMore']);
  const anyOther = reason('NotRecurring', ['Receipt', 'OneOrMore'], ['Contract', 'OneOrMore']);

  it.each([
    [
      'the sole generic requirement, wherever it is listed',
      [twoDocuments, oneOther, supplyDefenseMaterial],
      'SupplyDefenseMaterial',
      'DefenseMaterial',
    ],
    [
      'a generic stand-in before one specific document',
      [oneOther, alternative],
      'MerchandiseReceived',
      'AlternativeDefenseMaterial',
    ],
    [
      'one specific required document',
      [twoDocuments, oneOther],
      'CreditOrCancellationPolicyProperlyDisclosed',
      'CancellationPolicy',
    ],
    ['the generic one of a set', [anyOf], 'InvalidChargeback', 'DefenseMaterial'],
    ['the first of a set', [anyOther], 'NotRecurring', 'Receipt'],
    [
      'the first of equals, in the order Adyen lists them',
      [oneOther, reason('Other', ['Letter', 'Required'])],
      'CreditOrCancellationPolicyProperlyDisclosed',
      'CancellationPolicy',
    ],
  ])('prefers %s', (_what, reasons, expected, documentType) => {
    expect(defenseFor(reasons)).toEqual({ reason: expected, documentType });
  });

  it('finds none when every reason needs several documents, or none is offered', () => {
    expect(defenseFor([twoDocuments])).toBeNull();
    expect(defenseFor([])).toBeNull();
  });

  it('takes, for evidence files, only a reason offering their types besides the PDF’s own', () => {
    const withInvoice = reason('GoodsWereAsDescribed', ['TIDorInvoice', 'Optional'], ['Letter', 'Required']);
    const invoiceOnly = reason('Invoiced', ['TIDorInvoice', 'Required']);
    const materialOnly = reason('SupplyDefenseMaterial', ['DefenseMaterial', 'Required']);
    expect(defenseFor([materialOnly, withInvoice], ['TIDorInvoice'])).toEqual({
      reason: 'GoodsWereAsDescribed',
      documentType: 'Letter',
    });
    expect(defenseFor([materialOnly, withInvoice, supplyDefenseMaterial], ['TIDorInvoice'])).toEqual({
      reason: 'SupplyDefenseMaterial',
      documentType: 'DefenseMaterial',
    });
    expect(defenseFor([invoiceOnly, materialOnly], ['TIDorInvoice'])).toBeNull();
  });
});

describe('adyen evidence file slots', () => {
  it.each([
    ['receipt', 'TIDorInvoice'],
    ['shipping_documentation', undefined],
    ['customer_communication', undefined],
    ['customer_signature', undefined],
    ['refund_policy', undefined],
    ['cancellation_policy', undefined],
    ['service_documentation', undefined],
    ['duplicate_charge_documentation', undefined],
    ['access_activity_log', undefined],
    ['uncategorized', undefined],
  ] as const)('%s → %s', (category, slot) => {
    expect(evidenceLimits.slots[category]).toBe(slot);
  });

  it('takes JPG and PDF (no PNG), with no text field', () => {
    expect(evidenceLimits).toMatchObject({
      types: ['pdf', 'jpg'],
      maxFileBytes: 10 * 1024 * 1024,
      maxTotalBytes: null,
      maxPages: null,
      textLimits: {},
    });
  });
});
