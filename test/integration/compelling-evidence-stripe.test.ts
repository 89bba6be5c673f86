import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissions } from '../../src/db/schema/submissions.js';
import { type StripeFake, startStripeFake } from '../fakes/stripe.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { getDispute, newTenant, orderTemplate, readStored, type Tenant } from '../helpers/disputes.js';
import { connectStripeFake, type StripeAccount } from '../helpers/mirroring.js';

/**
 * The "Done when" for Visa CE 3.0 at Stripe (docs/api.md, "What is sent for CE 3.0 and Visa
 * compliance"): a Visa fraud dispute mirrored from the fake, answered through the API with two past
 * payments (charges the fake holds) and sent by the submission worker. Qualified, the update carries
 * Stripe's enhanced evidence with both charge ids, and Stripe's verdict is mirrored back; past payments
 * 30 and 40 days old do not qualify, and nothing of CE 3.0 is sent.
 */
let api: TestApi;
let tenant: Tenant;
let fake: StripeFake;
let stripe: StripeAccount;
let template: string;

beforeAll(async () => {
  api = await startTestApi({ workers: ['submission'], env: { SUBMIT_WAIT_MS: '0' } });
  tenant = await newTenant(api);
  fake = await startStripeFake();
  stripe = await connectStripeFake(api, tenant.org, fake);
  template = await orderTemplate(api, tenant.key);
});
afterAll(async () => {
  await fake.close();
  await api.close();
});

const ip = '203.0.113.7';
const device = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const ce3 = 'evidence[enhanced_evidence][visa_compelling_evidence_3]';

/** A Visa fraud dispute at the fake, with prior charges of the card `days` before the disputed one. */
async function visaFraud(days: [number, number]) {
  const [id] = fake.addDisputes(1, { card: { brand: 'visa', code: '10.4' }, reason: 'fraudulent' }) as [
    string,
  ];
  fake.setEvidence(id, { customer_purchase_ip: ip });
  const charges = days.map((before) => fake.addPriorCharge(id, before));
  expect(await stripe.poll()).toMatchObject({ outcome: 'polled' });
  const answered = await api.call('PUT', `/v1/disputes/${id}`, {
    key: tenant.key,
    json: {
      template,
      fields: {
        order_id: 'A-4711',
        customer_device_id: device,
        customer_account_id: 'ada-lovelace',
        product_description: 'Monthly tea subscription',
        merchandise_or_services: 'merchandise',
      },
      past_payments: charges.map((charge) => ({
        id: charge.id,
        amount: 1999,
        currency: 'usd',
        charged_at: charge.created,
        ip_address: ip,
        device_id: device,
        user_id: 'ada-lovelace',
        item_description: 'Monthly tea subscription',
      })),
    },
  });
  expect(answered.status, answered.text).toBe(200);
  return { id, charges: charges.map((charge) => charge.id) };
}

async function submitAndWait(id: string) {
  const submitted = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
  expect(submitted.status, submitted.text).toBe(202);
  await expect
    .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 30_000 })
    .toBe('submitted');
  const stored = await readStored(api, tenant, id);
  const [submission] = await api.db.db
    .select()
    .from(submissions)
    .where(eq(submissions.disputeUid, stored.uid));
  return submission;
}

const updateBody = (id: string) =>
  fake.received
    .filter((request) => request.method === 'POST' && request.path === `/v1/disputes/${id}`)
    .map((request) => new URLSearchParams(request.body.toString('utf8')));

describe('Visa CE 3.0 against the Stripe fake', () => {
  it('two qualifying past payments: the submission carries the enhanced evidence with both charge ids', {
    timeout: 90_000,
  }, async () => {
    const { id, charges } = await visaFraud([150, 200]);
    const submission = await submitAndWait(id);
    const ours = {
      program: 'visa_ce3',
      status: 'qualified',
      required_actions: [],
      matched: ['ip_address', 'device_id', 'customer_account_id'],
      prior_payments: charges,
    };
    expect(submission?.compellingEvidence).toEqual(ours);
    // Before the enhanced evidence reached Stripe, its verdict (mirrored at the first poll) asked for it.
    expect((await getDispute(api, tenant.key, id)).compelling_evidence).toEqual({
      ...ours,
      processor_status: 'requires_action',
    });
    const prior = (charge: string) => ({
      charge,
      customer_account_id: 'ada-lovelace',
      customer_device_id: device,
      customer_purchase_ip: ip,
      product_description: 'Monthly tea subscription',
    });
    expect(fake.enhanced.received.get(id)).toEqual({
      visa_compelling_evidence_3: {
        disputed_transaction: {
          customer_account_id: 'ada-lovelace',
          customer_device_id: device,
          customer_purchase_ip: ip,
          merchandise_or_services: 'merchandise',
          product_description: 'Monthly tea subscription',
        },
        prior_undisputed_transactions: { 0: prior(charges[0] as string), 1: prior(charges[1] as string) },
      },
    });
    const [update] = updateBody(id);
    expect(update?.get('submit')).toBe('true');
    expect(update?.get(`${ce3}[prior_undisputed_transactions][0][charge]`)).toBe(charges[0]);
    expect(update?.get(`${ce3}[prior_undisputed_transactions][1][charge]`)).toBe(charges[1]);

    // Stripe's own verdict comes back with the next mirror of the dispute, beside ours.
    expect(fake.dispute(id).evidence_details).toMatchObject({
      enhanced_eligibility: { visa_compelling_evidence_3: { status: 'qualified', required_actions: [] } },
    });
    await stripe.poll();
    expect((await readStored(api, tenant, id)).compellingEvidenceProcessorStatus).toBe('qualified');
    expect((await getDispute(api, tenant.key, id)).compelling_evidence).toEqual({
      ...ours,
      processor_status: 'qualified',
    });
  });

  it('past payments 30 and 40 days old: requires_action, and no enhanced evidence is sent', {
    timeout: 90_000,
  }, async () => {
    const { id } = await visaFraud([30, 40]);
    const submission = await submitAndWait(id);
    const ours = {
      program: 'visa_ce3',
      status: 'requires_action',
      required_actions: ['missing_prior_undisputed_transactions'],
      matched: [],
      prior_payments: [],
    };
    expect(submission?.compellingEvidence).toEqual(ours);
    expect((await getDispute(api, tenant.key, id)).compelling_evidence).toEqual({
      ...ours,
      processor_status: 'requires_action',
    });
    expect(fake.enhanced.received.has(id)).toBe(false);
    const [update] = updateBody(id);
    expect(update).toBeDefined();
    expect([...(update?.keys() ?? [])].filter((key) => key.includes('enhanced_evidence'))).toEqual([]);
    await stripe.poll();
    expect((await readStored(api, tenant, id)).compellingEvidenceProcessorStatus).toBe('requires_action');
    expect((await getDispute(api, tenant.key, id)).compelling_evidence).toEqual({
      ...ours,
      processor_status: 'requires_action',
    });
  });
});
