import type {
  AlertPage,
  ListAlertsRequest,
  RefundChargeRequest,
  RefundChargeResult,
} from '../alert-types.js';
import { documentOnly } from '../evidence-limits.js';
import { checkEvidenceLimits, sentAttached, sentDocument, slottedFiles } from '../slot-uploads.js';
import type {
  Capabilities,
  DisputePage,
  EvidenceLimits,
  ListDisputesRequest,
  ProcessorAdapter,
  SubmitEvidenceRequest,
  SubmitEvidenceResult,
} from '../types.js';
import { ProcessorError } from '../types.js';
import { MockAlertWorld } from './alerts.js';
import { MockRefunds } from './refunds.js';
import { MockDisputeWorld } from './world.js';

/**
 * The mock processor behind test-mode disputes (`source: mock`) and the demo. It behaves like a processor
 * that deduplicates on the idempotency key, and its answer is chosen by the dispute's charge id, the way
 * card networks' test numbers choose theirs:
 * - a charge starting `ch_mock_refuse_once` is refused the first time its dispute is submitted only;
 * - a charge starting `ch_mock_refuse` is refused (a permanent error, as a 4xx from a processor);
 * - a charge starting `ch_mock_flaky` fails once per submission as a brief outage would (a 503 with
 *   Retry-After: 1), then is accepted;
 * - a charge starting `ch_mock_unavailable` fails as an outage would (a retryable error, as a 503);
 * - anything else is accepted.
 * An idempotency key it has accepted answers the same again, unless the document differs: then it refuses.
 */
export const mockCharges = {
  refuseOnce: 'ch_mock_refuse_once',
  refuse: 'ch_mock_refuse',
  flaky: 'ch_mock_flaky',
  unavailable: 'ch_mock_unavailable',
} as const;

export interface RecordedSubmission {
  request: SubmitEvidenceRequest;
  reference: string;
}

export class MockAdapter implements ProcessorAdapter {
  readonly name = 'mock';
  readonly evidenceLimits: EvidenceLimits = documentOnly;
  readonly capabilities: Capabilities = {
    list: true,
    get: false,
    submit: 'api',
    fileUpload: true,
    accept: false,
    readOnly: true,
    pastPayments: false,
    push: false,
    kinds: ['chargeback', 'retrieval'],
    alerts: true,
    refund: true,
  };
  /** Accepted submissions by idempotency key: what the processor holds. */
  readonly accepted = new Map<string, RecordedSubmission>();
  /** Every call received, duplicates included: what went over the wire. */
  calls = 0;
  /** The disputes of the accounts connected to the mock processor, which mirroring lists. */
  readonly world: MockDisputeWorld;
  /** The accounts' alerts, which mirroring lists after their disputes (mock/alerts.ts). */
  readonly alerts: MockAlertWorld;

  constructor(options: { world?: MockDisputeWorld; alerts?: MockAlertWorld } = {}) {
    this.world = options.world ?? new MockDisputeWorld();
    this.alerts = options.alerts ?? new MockAlertWorld();
  }

  /** The refunds of alerts (mock/refunds.ts). */
  readonly refunds = new MockRefunds();
  refundCharge(request: RefundChargeRequest): Promise<RefundChargeResult> {
    return this.refunds.refundCharge(request);
  }

  listDisputes(request: ListDisputesRequest): Promise<DisputePage> {
    return this.world.listDisputes(request);
  }

  listAlerts(request: ListAlertsRequest): Promise<AlertPage> {
    return this.alerts.listAlerts(request);
  }

  /** Disputes refused once already (`ch_mock_refuse_once`), and submissions failed once (`ch_mock_flaky`). */
  readonly #refused = new Set<string>();
  readonly #failedOnce = new Set<string>();

  async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    // The mock holds to its limits as a processor would, before anything reaches it (none by default).
    checkEvidenceLimits(this.name, this.evidenceLimits, [
      ...[...slottedFiles(this.evidenceLimits, request.files).values()].flat().map(sentAttached),
      sentDocument(request.response.document),
    ]);
    this.calls += 1;
    const charge = request.dispute.charge ?? '';
    const refuseOnce = charge.startsWith(mockCharges.refuseOnce) && !this.#refused.has(request.dispute.id);
    if (refuseOnce || (charge.startsWith(mockCharges.refuse) && !charge.startsWith(mockCharges.refuseOnce))) {
      this.#refused.add(request.dispute.id);
      throw new ProcessorError(
        'mock',
        'The mock processor refused the evidence: charge is marked to refuse.',
        {
          retryable: false,
          status: 400,
        },
      );
    }
    const flaky = charge.startsWith(mockCharges.flaky) && !this.#failedOnce.has(request.idempotencyKey);
    if (flaky || charge.startsWith(mockCharges.unavailable)) {
      this.#failedOnce.add(request.idempotencyKey);
      throw new ProcessorError('mock', 'The mock processor is unavailable (503).', {
        retryable: true,
        status: 503,
        retryAfterSeconds: 1,
      });
    }
    const known = this.accepted.get(request.idempotencyKey);
    if (known && known.request.response.document.sha256 !== request.response.document.sha256) {
      // As Stripe answers a reused idempotency key with a different body: the same attempt must always
      // carry the same document.
      throw new ProcessorError('mock', 'The idempotency key was used before with a different document.', {
        retryable: false,
        status: 400,
      });
    }
    if (known) return { reference: known.reference };
    const reference = `mock_ev_${this.accepted.size + 1}`;
    this.accepted.set(request.idempotencyKey, { request, reference });
    return { reference };
  }
}
