import { describe, expect, it } from 'vitest';
import { startOfDay } from '../../../src/processors/dates.js';
import {
  type Activity,
  activityKey,
  answeredWith,
  type ChargebackCase,
  caseSchema,
  cycleKinds,
  evidenceLimits,
  kindOf,
  latestActivity,
  merchantAnswers,
  normalizeCase,
  queueMeanings,
  stateOf,
} from '../../../src/processors/vantiv/mapping.js';

const today = '2026-03-10';

function chargebackCase(fields: Partial<ChargebackCase> = {}): ChargebackCase {
  return caseSchema.parse({
    caseId: '12887910010',
    merchantId: '1288791',
    cycle: 'First Chargeback',
    currentQueue: 'Merchant',
    replyByDay: '2026-03-20',
    activity: [{ activityDate: '2026-03-01', activityType: 'Assign To Merchant', toQueue: 'Merchant' }],
    ...fields,
  });
}

const activity = (activityType: string, activityDate = '2026-03-05', notes?: string): Activity => ({
  activityType,
  activityDate,
  ...(notes !== undefined && { notes }),
});

describe('Vantiv queues', () => {
  const expected: Record<string, [chargeback: string, retrieval: string]> = {
    Merchant: ['needs_response', 'warning_needs_response'],
    'Merchant Automated': ['needs_response', 'warning_needs_response'],
    Vantiv: ['under_review', 'warning_under_review'],
    'Vantiv Outgoing': ['under_review', 'warning_under_review'],
    'Vantiv Error': ['under_review', 'warning_under_review'],
    'PayPal Hold - Represent': ['under_review', 'warning_under_review'],
    'Merchant Arbitrate': ['under_review', 'warning_under_review'],
    'Pre-Arbitrate': ['under_review', 'warning_under_review'],
    Arbitrate: ['under_review', 'warning_under_review'],
    'Decision Pending': ['under_review', 'warning_under_review'],
    'Merchant Assumed': ['lost', 'warning_closed'],
    'PayPal Hold - Assume': ['lost', 'warning_closed'],
    'Decision Final': ['lost', 'warning_closed'],
    'Vantiv Assumed': ['won', 'warning_closed'],
    'Network Assumed': ['won', 'warning_closed'],
  };

  it('the table holds every queue iQ lists, and no other', () => {
    expect(Object.keys(queueMeanings).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))(
    'a case in the %s queue reads %j',
    (queue, [forChargeback, forRetrieval]) => {
      expect(stateOf(chargebackCase({ currentQueue: queue }), today)).toBe(forChargeback);
      expect(stateOf(chargebackCase({ currentQueue: queue, cycle: 'Retrieval' }), today)).toBe(forRetrieval);
    },
  );

  it('matches queue names whatever their case and spacing', () => {
    expect(stateOf(chargebackCase({ currentQueue: ' merchant  assumed ' }), today)).toBe('lost');
  });

  it('reads a queue iQ does not list as work in progress', () => {
    expect(stateOf(chargebackCase({ currentQueue: 'Collections' }), today)).toBe('under_review');
    expect(stateOf(chargebackCase({ currentQueue: undefined }), today)).toBe('under_review');
  });
});

describe('Vantiv cycles', () => {
  const expected: Record<string, string> = {
    Retrieval: 'retrieval',
    'Retrieval Request': 'retrieval',
    'First Chargeback': 'chargeback',
    Representment: 'chargeback',
    'Chargeback Reversal': 'chargeback',
    'Pre-Arbitration': 'pre_arbitration',
    'VISA Pre-Arbitration/Arbitration': 'pre_arbitration',
    'Issuer Declined Pre-Arbitration': 'pre_arbitration',
    'Arbitration Chargeback': 'pre_arbitration',
    Arbitration: 'pre_arbitration',
  };

  it('the table holds every cycle the SDKs and iQ name', () => {
    expect(Object.keys(cycleKinds).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('the %s cycle is a %s', (cycle, kind) => {
    expect(kindOf(cycle)).toBe(kind);
  });

  it.each([
    ['Mastercard Retrieval Copy Request', 'retrieval'],
    ['MC Pre-Arb Chargeback', 'pre_arbitration'],
    ['Second Chargeback', 'chargeback'],
    [undefined, 'chargeback'],
  ] as const)('reads the unlisted cycle %s by its words as a %s', (cycle, kind) => {
    expect(kindOf(cycle)).toBe(kind);
  });

  it('a Chargeback Reversal is won, whatever queue it sits in', () => {
    expect(stateOf(chargebackCase({ cycle: 'Chargeback Reversal', currentQueue: 'Merchant' }), today)).toBe(
      'won',
    );
    expect(
      stateOf(chargebackCase({ cycle: 'chargeback reversal', currentQueue: 'Decision Final' }), today),
    ).toBe('won');
  });
});

describe("the merchant's answers", () => {
  const expected: Record<string, [chargeback: string, retrieval: string]> = {
    MERCHANT_REPRESENT: ['under_review', 'warning_under_review'],
    MERCHANT_REQUESTS_ARBITRATION: ['under_review', 'warning_under_review'],
    MERCHANT_RESPOND: ['under_review', 'warning_under_review'],
    MERCHANT_ACCEPTS_LIABILITY: ['lost', 'warning_closed'],
  };

  it('the table holds every answer activity of the API', () => {
    expect(Object.keys(merchantAnswers).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))(
    'after %s a case still in the Merchant queue reads %j',
    (type, [cb, rr]) => {
      const words = type
        .toLowerCase()
        .split('_')
        .map((word) => word[0]?.toUpperCase() + word.slice(1))
        .join(' ');
      for (const activityType of [type, words]) {
        const latest = [activity(activityType), ...chargebackCase().activity];
        expect(stateOf(chargebackCase({ activity: latest }), today)).toBe(cb);
        expect(stateOf(chargebackCase({ activity: latest, cycle: 'Retrieval' }), today)).toBe(rr);
      }
    },
  );

  it('reads activity types in words and as enum values alike', () => {
    expect(activityKey('Merchant Represent')).toBe('MERCHANT_REPRESENT');
    expect(activityKey(' merchant accepts liability ')).toBe('MERCHANT_ACCEPTS_LIABILITY');
    expect(activityKey('MERCHANT_RESPOND')).toBe('MERCHANT_RESPOND');
  });

  it('an answer followed by a return to the Merchant queue needs a response again', () => {
    const history = [
      activity('Assign To Merchant', '2026-03-08'),
      activity('Merchant Represent', '2026-03-05'),
      ...chargebackCase().activity,
    ];
    expect(stateOf(chargebackCase({ activity: history, cycle: 'Pre-Arbitration' }), today)).toBe(
      'needs_response',
    );
  });

  it('the latest activity is the one of the latest day, the first listed among those of one day', () => {
    const represent = activity('Merchant Represent', '2026-03-05');
    const assign = activity('Assign To Merchant', '2026-03-05');
    const older = activity('Add Note', '2026-03-09');
    expect(latestActivity(chargebackCase({ activity: [represent, assign] }))).toEqual(represent);
    expect(latestActivity(chargebackCase({ activity: [represent, older] }))).toEqual(older);
    expect(latestActivity(chargebackCase({ activity: [] }))).toBeUndefined();
  });

  it("recognises a submission by the document its represent's note names", () => {
    const answered = chargebackCase({
      activity: [
        activity('Merchant Represent', '2026-03-05', 'Rebuttal response document: rebuttal-sub_1.pdf\n…'),
      ],
    });
    expect(answeredWith(answered, 'rebuttal-sub_1.pdf')).toBe(true);
    expect(answeredWith(answered, 'rebuttal-sub_2.pdf')).toBe(false);
    const noted = chargebackCase({ activity: [activity('Add Note', '2026-03-05', 'rebuttal-sub_1.pdf')] });
    expect(answeredWith(noted, 'rebuttal-sub_1.pdf')).toBe(false);
  });
});

describe('deadlines', () => {
  it.each([
    ['2026-03-09', 'response_disabled'],
    ['2026-03-10', 'needs_response'],
    ['2026-03-11', 'needs_response'],
  ])('a case in the Merchant queue due %s reads %s on 2026-03-10', (replyByDay, state) => {
    expect(stateOf(chargebackCase({ replyByDay }), today)).toBe(state);
  });

  it('a case without a reply-by day needs a response', () => {
    expect(stateOf(chargebackCase({ replyByDay: undefined }), today)).toBe('needs_response');
  });
});

describe('normalizeCase', () => {
  it('maps every field, amounts as the minor units Vantiv gives', () => {
    const found = chargebackCase({
      dayIssuedByBank: '2026-02-27',
      dateReceivedByVantivCnp: '2026-03-01',
      originalTxnDay: '2026-01-15-05:00',
      replyByDay: '2026-03-20',
      vantivCnpTxnId: '2110834816113',
      cardType: 'VISA',
      reasonCode: '10.4',
      chargebackAmount: '4510',
      chargebackCurrencyType: 'USD',
      customerId: 'cust-1',
    });
    expect(normalizeCase(found, new Date(`${today}T09:00:00Z`))).toEqual({
      id: '12887910010',
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'chargeback',
      chargedAt: new Date('2026-01-15T00:00:00.000Z'),
      disputedAt: new Date('2026-02-27T00:00:00.000Z'),
      dueBy: new Date('2026-03-20T00:00:00.000Z'),
      closedAt: null,
      charge: '2110834816113',
      isChargeRefundable: null,
      amount: 4510,
      currency: 'usd',
      fee: null,
      reversalAmount: null,
      reversalTotal: null,
      reversalCurrency: null,
      customer: 'cust-1',
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
      processorStatus: 'Merchant',
      resolution: null,
      compellingEvidenceProcessorStatus: null,
    });
  });

  it('a closed case is closed on the day of its latest activity', () => {
    const won = chargebackCase({
      cycle: 'Chargeback Reversal',
      activity: [activity('Chargeback Reversal', '2026-03-08'), ...chargebackCase().activity],
    });
    expect(normalizeCase(won, new Date()).closedAt).toEqual(new Date('2026-03-08T00:00:00.000Z'));
  });

  it('without dates of its own, a case is disputed on the day Vantiv received it', () => {
    const found = chargebackCase({ dayIssuedByBank: undefined, dateReceivedByVantivCnp: '2026-03-01' });
    expect(normalizeCase(found, new Date()).disputedAt).toEqual(new Date('2026-03-01T00:00:00.000Z'));
    expect(startOfDay(undefined)).toBeNull();
  });

  it.each([
    ['VISA', '13.1', 'product_not_received'],
    ['MASTERCARD', '4853', 'product_unacceptable'],
    ['MC', '4837', 'fraudulent'],
    ['AMEX', 'C08', 'product_not_received'],
    ['DISCOVER', 'UA02', 'general'],
    [undefined, '12.6.1', 'duplicate'],
  ] as const)('a %s case with reason code %s is %s', (cardType, reasonCode, reason) => {
    expect(normalizeCase(chargebackCase({ cardType, reasonCode }), new Date()).reason).toBe(reason);
  });

  it('reads empty elements as absent and refuses an amount that is no whole number', () => {
    const empty = caseSchema.parse({ caseId: '1', cycle: '', currentQueue: '', activity: [] });
    expect(empty.cycle).toBeUndefined();
    expect(caseSchema.safeParse({ caseId: '1', chargebackAmount: '12.50' }).success).toBe(false);
    expect(caseSchema.safeParse({ caseId: 'A1' }).success).toBe(false);
  });
});

describe('vantiv evidence file slots', () => {
  it('takes every category as a document of the case', () => {
    expect(Object.values(evidenceLimits.slots)).toHaveLength(10);
    expect(new Set(Object.values(evidenceLimits.slots))).toEqual(new Set(['document']));
  });

  it('takes pdf, png and jpg of at most 2 MB, 10 MB a case', () => {
    expect(evidenceLimits).toMatchObject({
      types: ['pdf', 'png', 'jpg'],
      maxFileBytes: 2 * 1024 * 1024,
      maxTotalBytes: 10 * 1024 * 1024,
      maxPages: null,
      textLimits: {},
    });
  });
});
