import { describe, expect, it } from 'vitest';
import type { CompellingEvidence } from '../../../src/domain/compelling-evidence.js';
import type { PastPayment } from '../../../src/domain/evidence.js';
import { enhancedEvidence, feeAcknowledged } from '../../../src/processors/stripe/enhanced-evidence.js';
import { type StripeDispute, stripeDispute } from '../../../src/processors/stripe/mapping.js';
import type { SubmitEvidenceRequest } from '../../../src/processors/types.js';

const device = 'device-0123456789abcdef';
const prior = (id: string, extra: Partial<PastPayment> = {}): PastPayment => ({
  id,
  amount: 1999,
  currency: 'usd',
  charged_at: 1_700_000_000,
  ip_address: '203.0.113.7',
  device_id: device,
  user_id: 'acct-ada',
  email: 'ada@example.com',
  item_description: 'Tea subscription',
  shipping_address: '1 Analytical Way, London',
  ...extra,
});
const qualified: CompellingEvidence = {
  program: 'visa_ce3',
  status: 'qualified',
  required_actions: [],
  matched: ['ip_address', 'device_id', 'customer_account_id'],
  prior_payments: ['ch_1Older', 'py_1Oldest'],
};

function dispute(types: string[] = ['visa_compelling_evidence_3']): StripeDispute {
  return stripeDispute.parse({
    id: 'du_1Test',
    object: 'dispute',
    amount: 1000,
    currency: 'usd',
    created: 1_760_000_000,
    status: 'needs_response',
    reason: 'fraudulent',
    charge: 'ch_1Test',
    evidence: { customer_email_address: 'ada@example.com', customer_purchase_ip: '203.0.113.7' },
    evidence_details: { due_by: 1_761_000_000 },
    enhanced_eligibility_types: types,
  });
}

function request(
  overrides: {
    verdict?: CompellingEvidence | null;
    fee?: 'accept' | 'refuse';
    fields?: Record<string, string>;
    payments?: PastPayment[];
  } = {},
): Pick<SubmitEvidenceRequest, 'evidence' | 'compellingEvidence' | 'visaComplianceFee'> {
  return {
    evidence: {
      template: null,
      fields: overrides.fields ?? {
        customer_device_id: device,
        customer_account_id: 'acct-ada',
        product_description: 'Tea subscription, monthly',
        merchandise_or_services: 'Merchandise',
        shipping_address: '1 Analytical Way, London',
      },
      products: [],
      correspondence: [],
      pastPayments: overrides.payments ?? [prior('ch_1Newer'), prior('ch_1Older'), prior('py_1Oldest')],
      referenceUrl: null,
    },
    compellingEvidence: overrides.verdict === undefined ? qualified : overrides.verdict,
    visaComplianceFee: overrides.fee ?? 'refuse',
  };
}

const ce3 = 'evidence[enhanced_evidence][visa_compelling_evidence_3]';
const priorFields = (index: number, charge: string) => ({
  [`${ce3}[prior_undisputed_transactions][${index}][charge]`]: charge,
  [`${ce3}[prior_undisputed_transactions][${index}][customer_account_id]`]: 'acct-ada',
  [`${ce3}[prior_undisputed_transactions][${index}][customer_device_id]`]: device,
  [`${ce3}[prior_undisputed_transactions][${index}][customer_email_address]`]: 'ada@example.com',
  [`${ce3}[prior_undisputed_transactions][${index}][customer_purchase_ip]`]: '203.0.113.7',
  [`${ce3}[prior_undisputed_transactions][${index}][product_description]`]: 'Tea subscription',
});

describe("Stripe's enhanced evidence (Visa CE 3.0)", () => {
  it("sends the disputed transaction and exactly the verdict's two past payments, by charge id", () => {
    expect(enhancedEvidence(request(), dispute())).toEqual({
      skipped: null,
      form: {
        [`${ce3}[disputed_transaction][customer_account_id]`]: 'acct-ada',
        [`${ce3}[disputed_transaction][customer_device_id]`]: device,
        [`${ce3}[disputed_transaction][customer_email_address]`]: 'ada@example.com',
        [`${ce3}[disputed_transaction][customer_purchase_ip]`]: '203.0.113.7',
        [`${ce3}[disputed_transaction][merchandise_or_services]`]: 'merchandise',
        [`${ce3}[disputed_transaction][product_description]`]: 'Tea subscription, monthly',
        ...priorFields(0, 'ch_1Older'),
        ...priorFields(1, 'py_1Oldest'),
      },
    });
  });

  it.each<[string, Parameters<typeof request>[0], string[] | undefined, string | null]>([
    [
      'our verdict requires action',
      { verdict: { ...qualified, status: 'requires_action' } },
      undefined,
      null,
    ],
    ['our verdict is not qualified', { verdict: { ...qualified, status: 'not_qualified' } }, undefined, null],
    ['the program does not apply', { verdict: null }, undefined, null],
    [
      'Stripe does not list the dispute as eligible',
      {},
      [],
      'Stripe does not list the dispute as eligible for Visa CE 3.0',
    ],
    [
      'a past payment is not a Stripe charge',
      {
        payments: [prior('ch_1Older'), prior('py_1Oldest', { id: 'order-77' })],
        verdict: { ...qualified, prior_payments: ['ch_1Older', 'order-77'] },
      },
      undefined,
      'a past payment of the verdict is not a Stripe charge (ch_…, py_…)',
    ],
    [
      "the verdict's past payments are not in the evidence",
      { payments: [prior('ch_1Older')] },
      undefined,
      'the verdict does not name two of the evidence past payments',
    ],
  ])('sends no CE 3.0 evidence when %s', (_, given, types, skipped) => {
    expect(enhancedEvidence(request(given), dispute(types))).toEqual({ form: {}, skipped });
  });

  it('leaves out a device value shorter than Stripe takes (15), and the free-text shipping address', () => {
    const short = 'dev-12345678901';
    const answer = enhancedEvidence(
      request({
        fields: { customer_device_id: short.slice(0, 14), customer_account_id: 'acct-ada' },
        payments: [prior('ch_1Older', { device_id: short }), prior('py_1Oldest', { device_id: 'x' })],
      }),
      dispute(),
    );
    expect('form' in answer && answer.form).toEqual({
      [`${ce3}[disputed_transaction][customer_account_id]`]: 'acct-ada',
      [`${ce3}[disputed_transaction][customer_email_address]`]: 'ada@example.com',
      [`${ce3}[disputed_transaction][customer_purchase_ip]`]: '203.0.113.7',
      ...priorFields(0, 'ch_1Older'),
      [`${ce3}[prior_undisputed_transactions][0][customer_device_id]`]: short,
      ...Object.fromEntries(
        Object.entries(priorFields(1, 'py_1Oldest')).filter(([key]) => !key.endsWith('[customer_device_id]')),
      ),
    });
    expect(JSON.stringify(answer)).not.toContain('shipping_address');
  });
});

describe("Stripe's Visa compliance fee", () => {
  it('acknowledges the fee on a visa_compliance dispute only when the organisation accepts it', () => {
    expect(enhancedEvidence(request({ verdict: null, fee: 'accept' }), dispute(['visa_compliance']))).toEqual(
      {
        form: { [feeAcknowledged]: 'true' },
        skipped: null,
      },
    );
  });

  it('refuses to answer a visa_compliance dispute whose fee the organisation refuses, naming the setting', () => {
    expect(
      enhancedEvidence(
        request({ fee: 'refuse' }),
        dispute(['visa_compliance', 'visa_compelling_evidence_3']),
      ),
    ).toEqual({
      refused:
        "Dispute du_1Test is a Visa compliance dispute: Stripe takes evidence for it only with the network's fee acknowledged (USD 500, refunded if won), which this organisation refuses. To answer such disputes, run `org settings --visa-compliance-fee accept`.",
    });
  });

  it('sends nothing of the fee on any other dispute, whatever the setting', () => {
    expect(enhancedEvidence(request({ verdict: null, fee: 'accept' }), dispute([]))).toEqual({
      form: {},
      skipped: null,
    });
  });
});
