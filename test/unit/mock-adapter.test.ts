import { describe, expect, it } from 'vitest';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { ProcessorError, type SubmitEvidenceRequest } from '../../src/processors/types.js';
import { noEvidence } from '../helpers/evidence-documents.js';

function request(key: string, sha256: string): SubmitEvidenceRequest {
  return {
    connection: {
      account: { uid: '00000000-0000-4000-8000-000000000000', id: 'default', livemode: false },
      credentials: null,
      baseUrl: null,
      readOnly: false,
    },
    dispute: {
      id: 'dp_1',
      charge: 'ch_1',
      accountId: null,
      reason: 'fraudulent',
      kind: 'chargeback',
      amount: 100,
      currency: 'usd',
    },
    evidence: noEvidence,
    response: {
      evidence: {},
      document: { id: 'doc_1', filename: 'response-dp_1.pdf', pdf: Buffer.from('%PDF-'), sha256 },
    },
    files: [],
    idempotencyKey: key,
    compellingEvidence: null,
    visaComplianceFee: 'refuse',
  };
}

describe('the mock processor and idempotency keys', () => {
  it('answers a repeated call with the same key and document as the first, recording one submission', async () => {
    const mock = new MockAdapter();
    const first = await mock.submitEvidence(request('sub_1', 'aaa'));
    expect(await mock.submitEvidence(request('sub_1', 'aaa'))).toEqual(first);
    expect(mock.accepted.size).toBe(1);
    expect(mock.calls).toBe(2);
  });

  it('refuses a key used before with a different document, as Stripe refuses a changed body', async () => {
    const mock = new MockAdapter();
    await mock.submitEvidence(request('sub_1', 'aaa'));
    const refusal = await mock.submitEvidence(request('sub_1', 'bbb')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ProcessorError);
    expect(refusal).toMatchObject({ retryable: false, status: 400 });
    expect(mock.accepted.get('sub_1')?.request.response.document.sha256).toBe('aaa');
  });
});
