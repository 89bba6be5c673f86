import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompellingEvidence } from '../../../src/domain/compelling-evidence.js';
import type { PastPayment } from '../../../src/domain/evidence.js';
import { BraintreeAdapter } from '../../../src/processors/braintree/adapter.js';
import type { ProcessorConnection, SubmitEvidenceRequest } from '../../../src/processors/types.js';
import { type BraintreeFake, startBraintreeFake } from '../../fakes/braintree.js';
import { contractAccount, contractSubmission } from '../../helpers/adapter-contract.js';
import { braintreeCredentials as credentials } from '../../helpers/processor-specs.js';

/**
 * Visa CE 3.0 at Braintree (docs/api.md, "What is sent for CE 3.0 and Visa compliance"): a qualified
 * verdict adds categorized text evidence, each prior transaction a group under its sequence number; a
 * retry adds none twice; any other verdict adds none.
 */
let fake: BraintreeFake;
let adapter: BraintreeAdapter;
const now = () => new Date('2026-03-10T12:00:00Z');

beforeEach(async () => {
  fake = await startBraintreeFake({
    merchantId: credentials.merchant_id,
    publicKey: credentials.public_key,
    privateKey: credentials.private_key,
    now,
  });
  adapter = new BraintreeAdapter({}, { now });
});
afterEach(async () => {
  await fake.close();
});

const connection = (): ProcessorConnection => ({
  account: contractAccount,
  credentials: JSON.stringify(credentials),
  baseUrl: fake.server.url,
  readOnly: false,
});

const device = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const payment = (id: string, chargedAt: string, extra: Partial<PastPayment> = {}): PastPayment => ({
  id,
  amount: 1999,
  currency: 'usd',
  charged_at: chargedAt,
  ip_address: '203.0.113.7',
  device_id: device,
  email: 'ada@example.com',
  item_description: 'Tea',
  ...extra,
});
const qualified: CompellingEvidence = {
  program: 'visa_ce3',
  status: 'qualified',
  required_actions: [],
  matched: ['ip_address', 'device_id', 'customer_account_id'],
  prior_payments: ['bt_tx_older', 'bt_tx_oldest'],
};

async function request(
  id: string,
  key: string,
  verdict: CompellingEvidence | null,
): Promise<SubmitEvidenceRequest> {
  const dispute = await adapter.getDispute({ connection: connection(), id });
  if (!dispute) throw new Error(`no dispute ${id}`);
  const base = contractSubmission(dispute, connection(), key);
  return {
    ...base,
    compellingEvidence: verdict,
    evidence: {
      ...base.evidence,
      fields: { ...base.evidence.fields, customer_device_id: device, customer_email: 'ada@example.com' },
      pastPayments: [
        payment('bt_tx_newer', '2026-01-02T10:00:00Z'),
        payment('bt_tx_older', '2025-10-01T09:30:00Z', { shipping_address: '1 Analytical Way, London' }),
        payment('bt_tx_oldest', '1748772000', { email: undefined }),
      ],
    },
  };
}

const categorized = (id: string) =>
  (fake.disputes.get(id)?.evidence ?? [])
    .filter((evidence) => evidence.category)
    .map(({ category, comments, sequenceNumber }) => [category, comments, sequenceNumber ?? null]);

const expected = [
  ['DEVICE_ID', device, null],
  ['PURCHASER_EMAIL_ADDRESS', 'ada@example.com', null],
  ['PRIOR_NON_DISPUTED_TRANSACTION_ID', 'bt_tx_older', '1'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_DATE_TIME', '2025-10-01T09:30:00Z', '1'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_IP_ADDRESS', '203.0.113.7', '1'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_EMAIL_ADDRESS', 'ada@example.com', '1'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_PHYSICAL_ADDRESS', '1 Analytical Way, London', '1'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_ID', 'bt_tx_oldest', '2'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_DATE_TIME', '2025-06-01T10:00:00Z', '2'],
  ['PRIOR_NON_DISPUTED_TRANSACTION_IP_ADDRESS', '203.0.113.7', '2'],
];

describe('braintree: Visa CE 3.0 as categorized evidence', () => {
  it("a qualified verdict sends the verdict's two prior transactions, each under its sequence number", async () => {
    const id = fake.addDispute({ reason: 'fraud' });
    await adapter.submitEvidence(await request(id, 'sub_ce3qualified', qualified));
    expect(fake.submissionCount(id)).toBe(1);
    expect(categorized(id)).toEqual(expected);
    const sent = fake.calls.filter(
      (call) => call.method === 'POST' && call.path.endsWith(`/disputes/${id}/evidence`),
    );
    expect(sent.map((call) => call.body)).toContain(
      '<?xml version="1.0" encoding="UTF-8"?><evidence><comments>bt_tx_older</comments><category>PRIOR_NON_DISPUTED_TRANSACTION_ID</category><sequence-number>1</sequence-number></evidence>',
    );
  });

  it('a retry after a lost answer midway adds no piece twice', async () => {
    const id = fake.addDispute({ reason: 'fraud' });
    const sent = await request(id, 'sub_ce3retry', qualified);
    // The read, the text evidence, two categorized pieces, then the third's answer is lost.
    let left = 4;
    fake.server.inject({ kind: 'drop-after', match: () => left-- === 0 });
    const error = await adapter.submitEvidence(sent).catch((thrown: unknown) => thrown);
    fake.server.clearFaults();
    expect(error).toMatchObject({ retryable: true });
    await adapter.submitEvidence(sent);
    expect(fake.submissionCount(id)).toBe(1);
    expect(categorized(id)).toEqual(expected);
  });

  it.each([
    ['requires_action', { ...qualified, status: 'requires_action' }],
    ['not_qualified', { ...qualified, status: 'not_qualified' }],
    ['no verdict', null],
  ] as const)('%s: no categorized evidence', async (_, verdict) => {
    const id = fake.addDispute({ reason: 'fraud' });
    await adapter.submitEvidence(await request(id, 'sub_ce3none', verdict as CompellingEvidence | null));
    expect(fake.submissionCount(id)).toBe(1);
    expect(categorized(id)).toEqual([]);
  });
});
