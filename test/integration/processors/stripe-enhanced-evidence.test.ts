import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompellingEvidence } from '../../../src/domain/compelling-evidence.js';
import { StripeAdapter } from '../../../src/processors/stripe/adapter.js';
import {
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
  type SubmitEvidenceRequest,
} from '../../../src/processors/types.js';
import {
  type StripeFake,
  startStripeFake,
  stripeFakeCredentials,
  stripeFakeKeys,
} from '../../fakes/stripe.js';
import { capturingLogger, contractAccount, contractSubmission } from '../../helpers/adapter-contract.js';

/**
 * The Stripe adapter's enhanced evidence against the fake (docs/api.md, "What is sent for CE 3.0 and
 * Visa compliance"): the compliance fee, a past payment that is not a Stripe charge, and the fake's own
 * checks of what Stripe refuses.
 */
describe('stripe enhanced evidence against the fake Stripe', () => {
  let fake: StripeFake;
  const logs = capturingLogger();
  const adapter = new StripeAdapter({ logger: logs.logger });
  const connection = (): ProcessorConnection => ({
    account: contractAccount,
    credentials: JSON.stringify(stripeFakeCredentials),
    baseUrl: fake.server.url,
    readOnly: false,
  });

  beforeAll(async () => {
    fake = await startStripeFake();
  });
  afterAll(() => fake.close());

  const submission = (
    id: string,
    key: string,
    extra: Partial<SubmitEvidenceRequest> = {},
  ): SubmitEvidenceRequest => {
    const base = contractSubmission(
      { id, charge: fake.dispute(id).charge } as NormalizedDispute,
      connection(),
      key,
    );
    return { ...base, ...extra };
  };
  const calls = (id: string) =>
    fake.received.filter((request) => request.path.includes(id) || request.path === '/v1/files');

  /** A form POST to the fake as Stripe's API takes it. */
  async function update(id: string, form: Record<string, string>) {
    const response = await fetch(`${fake.server.url}/v1/disputes/${id}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stripeFakeKeys.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
  }

  describe('a Visa compliance dispute', () => {
    it('whose fee the organisation refuses is not answered: a permanent error naming the setting, nothing sent', async () => {
      const [id] = fake.addDisputes(1, { visaCompliance: true, card: { brand: 'visa', code: '10.4' } }) as [
        string,
      ];
      const before = fake.received.length;
      const error = await adapter
        .submitEvidence(submission(id, 'sub_compliance_refuse'))
        .catch((thrown) => thrown);
      expect(error).toBeInstanceOf(ProcessorError);
      expect(error).toMatchObject({ retryable: false });
      expect((error as ProcessorError).message).toContain('`org settings --visa-compliance-fee accept`');
      // Only the read of the dispute: no upload, no update.
      expect(fake.received.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
        `GET /v1/disputes/${id}`,
      ]);
      expect(fake.submissionCount(id)).toBe(0);
    });

    it('whose fee the organisation accepts is submitted with fee_acknowledged=true', async () => {
      const [id] = fake.addDisputes(1, { visaCompliance: true, card: { brand: 'visa', code: '10.4' } }) as [
        string,
      ];
      await adapter.submitEvidence(submission(id, 'sub_compliance_accept', { visaComplianceFee: 'accept' }));
      expect(fake.submissionCount(id)).toBe(1);
      expect(fake.enhanced.received.get(id)).toEqual({ visa_compliance: { fee_acknowledged: 'true' } });
      expect(fake.dispute(id).evidence_details).toMatchObject({
        enhanced_eligibility: { visa_compliance: { status: 'fee_acknowledged' } },
      });
    });

    it('any other dispute goes without the fee whatever the setting', async () => {
      const [id] = fake.addDisputes(1, { card: { brand: 'mastercard', code: '4837' } }) as [string];
      await adapter.submitEvidence(submission(id, 'sub_no_compliance', { visaComplianceFee: 'accept' }));
      expect(fake.submissionCount(id)).toBe(1);
      expect(fake.enhanced.received.has(id)).toBe(false);
    });
  });

  it('a qualified verdict whose past payment is not a Stripe charge: submitted without CE 3.0, and said in the log', async () => {
    const [id] = fake.addDisputes(1, { card: { brand: 'visa', code: '10.4' }, reason: 'fraudulent' }) as [
      string,
    ];
    const charge = fake.addPriorCharge(id, 150);
    const verdict: CompellingEvidence = {
      program: 'visa_ce3',
      status: 'qualified',
      required_actions: [],
      matched: ['ip_address', 'device_id'],
      prior_payments: [charge.id, 'order-1234'],
    };
    const base = submission(id, 'sub_not_a_charge');
    const payment = { amount: 1999, currency: 'usd', charged_at: charge.created, ip_address: '203.0.113.7' };
    await adapter.submitEvidence({
      ...base,
      compellingEvidence: verdict,
      evidence: {
        ...base.evidence,
        pastPayments: [
          { id: charge.id, ...payment },
          { id: 'order-1234', ...payment },
        ],
      },
    });
    expect(fake.submissionCount(id)).toBe(1);
    expect(fake.enhanced.received.has(id)).toBe(false);
    expect(logs.text()).toContain('a past payment of the verdict is not a Stripe charge');
    expect(calls(id).length).toBeGreaterThan(0);
  });

  describe('the fake refuses what Stripe refuses', () => {
    const ce3 = 'evidence[enhanced_evidence][visa_compelling_evidence_3]';
    const prior = (index: number, charge: string) => ({
      [`${ce3}[prior_undisputed_transactions][${index}][charge]`]: charge,
    });

    it.each<[string, (id: string, charges: string[]) => Record<string, string>, RegExp]>([
      ['one prior transaction', (_, [a]) => prior(0, a as string), /exactly two/],
      [
        'an unknown charge',
        (_, [a]) => ({ ...prior(0, a as string), ...prior(1, 'ch_Unknown') }),
        /No such charge: 'ch_Unknown'/,
      ],
      [
        'the disputed charge',
        (id, [a]) => ({ ...prior(0, a as string), ...prior(1, fake.dispute(id).charge as string) }),
        /is disputed/,
      ],
      [
        'a device id under 15 characters',
        (_, [a, b]) => ({
          ...prior(0, a as string),
          ...prior(1, b as string),
          [`${ce3}[disputed_transaction][customer_device_id]`]: 'short',
        }),
        /at least 15 characters/,
      ],
      [
        'an unknown field',
        (_, [a, b]) => ({
          ...prior(0, a as string),
          ...prior(1, b as string),
          [`${ce3}[disputed_transaction][colour]`]: 'x',
        }),
        /unknown parameter/,
      ],
    ])('%s', async (_, form, message) => {
      const [id] = fake.addDisputes(1, { card: { brand: 'visa', code: '10.4' }, reason: 'fraudulent' }) as [
        string,
      ];
      const charges = [fake.addPriorCharge(id, 150).id, fake.addPriorCharge(id, 200).id];
      const answer = await update(id, form(id, charges));
      expect(answer.status).toBe(400);
      expect(answer.body.error?.message).toMatch(message);
      expect(fake.submissionCount(id)).toBe(0);
    });

    it('CE 3.0 on a dispute not eligible for it, and evidence on a compliance dispute without the fee', async () => {
      const [other] = fake.addDisputes(1, { card: { brand: 'mastercard', code: '4837' } }) as [string];
      const charges = [fake.addPriorCharge(other, 150).id, fake.addPriorCharge(other, 200).id];
      const notEligible = await update(other, {
        ...prior(0, charges[0] as string),
        ...prior(1, charges[1] as string),
      });
      expect(notEligible.status).toBe(400);
      expect(notEligible.body.error?.message).toMatch(/not eligible for Visa Compelling Evidence 3.0/);

      const [compliance] = fake.addDisputes(1, { visaCompliance: true }) as [string];
      const refused = await update(compliance, {
        'evidence[uncategorized_text]': 'Our answer',
        submit: 'true',
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error?.message).toMatch(/acknowledge the fee/);
      expect(fake.submissionCount(compliance)).toBe(0);
    });
  });
});
