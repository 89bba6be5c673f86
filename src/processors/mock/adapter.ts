import type { ProcessorAdapter, SubmitEvidenceRequest, SubmitEvidenceResult } from '../types.js';
import { ProcessorError } from '../types.js';

/**
 * The mock processor behind test-mode disputes (`source: mock`) and the demo. It behaves like a processor
 * that deduplicates on the idempotency key, and its answer is chosen by the dispute's charge id, the way
 * card networks' test numbers choose theirs:
 * - a charge starting `ch_mock_refuse` is refused (a permanent error, as a 4xx from a processor);
 * - a charge starting `ch_mock_unavailable` fails as an outage would (a retryable error, as a 503);
 * - anything else is accepted.
 */
export const mockCharges = {
  refuse: 'ch_mock_refuse',
  unavailable: 'ch_mock_unavailable',
} as const;

export interface RecordedSubmission {
  request: SubmitEvidenceRequest;
  reference: string;
}

export class MockAdapter implements ProcessorAdapter {
  readonly name = 'mock';
  /** Accepted submissions by idempotency key: what the processor holds. */
  readonly accepted = new Map<string, RecordedSubmission>();
  /** Every call received, duplicates included: what went over the wire. */
  calls = 0;

  async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    this.calls += 1;
    const charge = request.dispute.charge ?? '';
    if (charge.startsWith(mockCharges.refuse)) {
      throw new ProcessorError(
        'mock',
        'The mock processor refused the evidence: charge is marked to refuse.',
        {
          retryable: false,
          status: 400,
        },
      );
    }
    if (charge.startsWith(mockCharges.unavailable)) {
      throw new ProcessorError('mock', 'The mock processor is unavailable (503).', {
        retryable: true,
        status: 503,
      });
    }
    const known = this.accepted.get(request.idempotencyKey);
    if (known) return { reference: known.reference };
    const reference = `mock_ev_${this.accepted.size + 1}`;
    this.accepted.set(request.idempotencyKey, { request, reference });
    return { reference };
  }
}
