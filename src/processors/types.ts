import type { CorrespondenceItem, FieldValue, PastPayment, Product } from '../domain/evidence.js';

/**
 * Terminology:
 * - adapter: the code that speaks one processor's API (or stands in for one: `mock`, `standalone`).
 * - submission: one attempt at sending a dispute's evidence; its id is the idempotency key.
 *
 * Adapters know one processor and nothing of this service's database: they get plain values and answer
 * with plain values or a ProcessorError.
 */

/** The evidence as submitted: the template's fields with the client's evidence items. */
export interface EvidencePackage {
  template: string | null;
  fields: Record<string, FieldValue>;
  products: Product[];
  correspondence: CorrespondenceItem[];
  pastPayments: PastPayment[];
  referenceUrl: string | null;
}

/** What an adapter needs to know of the dispute it answers. */
export interface DisputeReference {
  id: string;
  charge: string | null;
  /** The processor's own connected-account id for direct charges (Stripe Connect), set by the client. */
  accountId: string | null;
  reason: string;
  kind: string;
  amount: number | null;
  currency: string | null;
}

export interface SubmitEvidenceRequest {
  dispute: DisputeReference;
  evidence: EvidencePackage;
  /** Stable across retries of the same submission: processors that support it deduplicate on it. */
  idempotencyKey: string;
}

export interface SubmitEvidenceResult {
  /** The processor's reference for the accepted evidence, where it gives one. */
  reference: string | null;
}

export interface ProcessorAdapter {
  readonly name: string;
  submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult>;
}

/**
 * A processor's refusal or failure. `retryable` says whether sending the same submission again may
 * succeed (timeouts, 5xx, 429); a refusal (4xx) is final until someone changes something.
 */
export class ProcessorError extends Error {
  readonly processor: string;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** Seconds the processor asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    processor: string,
    message: string,
    options: { retryable: boolean; status?: number; retryAfterSeconds?: number },
  ) {
    super(message);
    this.name = 'ProcessorError';
    this.processor = processor;
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
