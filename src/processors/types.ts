import type { CorrespondenceItem, FieldValue, PastPayment, Product } from '../domain/evidence.js';
import type { DisputeState } from '../domain/states.js';
import type { checks, kinds, Reason } from '../domain/vocabulary.js';

/**
 * Terminology:
 * - adapter: the code that speaks one processor's API (or stands in for one: `mock`, `standalone`).
 * - submission: one attempt at sending a dispute's evidence; its id is the idempotency key.
 * - cursor: the processor's position in its list of changed disputes, opaque to everyone but the adapter.
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
  /** The client's evidence as it stood when the submission was made. */
  evidence: EvidencePackage;
  /** The same rendered for a reviewer: the evidence dictionary and the PDF, for processors that take them. */
  response: ResponsePackage;
  /** Stable across retries of the same submission: processors that support it deduplicate on it. */
  idempotencyKey: string;
}

/** What src/services/documents.ts renders from a submission (README, Response documents). */
export interface ResponsePackage {
  /** Scalar evidence by name: the template's fields filled, and the template text as `uncategorized_text`. */
  evidence: Record<string, string | number | boolean>;
  document: {
    /** The document's id here (`doc_…`). */
    id: string;
    filename: string;
    pdf: Buffer;
    /** Hex SHA-256 of `pdf`. */
    sha256: string;
  };
}

export interface SubmitEvidenceResult {
  /** The processor's reference for the accepted evidence, where it gives one. */
  reference: string | null;
}

export interface ProcessorAdapter {
  readonly name: string;
  submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult>;
  /**
   * One page of the account's disputes changed since `cursor`, oldest change first. Present on every
   * adapter whose processor has a list API; the mirror job pages through it (ARCHITECTURE.md, the two
   * flows). Absent where there is nothing to mirror (standalone `api` disputes, processors without one).
   */
  listDisputes?(request: ListDisputesRequest): Promise<DisputePage>;
}

/** An adapter the mirror can poll. */
export type MirroringAdapter = ProcessorAdapter & Required<Pick<ProcessorAdapter, 'listDisputes'>>;

/** The connected account a listing is for, in plain values. */
export interface AccountReference {
  /** Stable for the account's life (connected_accounts.uid). */
  uid: string;
  /** The account's name, shown as the dispute's `account` (`default` for an organisation's first one). */
  id: string;
  livemode: boolean;
}

export interface ListDisputesRequest {
  account: AccountReference;
  /** The account's credentials as connected (opened from their sealed form); null for the mock processor. */
  credentials: string | null;
  /** Where the last committed page ended; null to start from the beginning of what the processor keeps. */
  cursor: string | null;
  /** At most this many disputes in the page. */
  limit: number;
}

export interface DisputePage {
  disputes: NormalizedDispute[];
  /** Where this page ended: stored with the page, and passed back for the next one. */
  nextCursor: string | null;
  /** Whether more changes wait beyond `nextCursor` now; false ends the poll. */
  hasMore: boolean;
}

/**
 * A dispute as its processor reports it: the processor-owned columns of a dispute (see
 * src/db/schema/disputes.ts) in this service's vocabulary, mapped by the adapter. The client's evidence and
 * this service's bookkeeping are never in it; `source`, `processor` and `account` come from the account.
 */
export interface NormalizedDispute {
  /** The processor's dispute id. */
  id: string;
  /** A state the processor decides; never one of this service's own (serviceLocalStates). */
  state: DisputeState;
  reason: Reason;
  kind: (typeof kinds)[number];
  chargedAt: Date | null;
  disputedAt: Date | null;
  dueBy: Date | null;
  closedAt: Date | null;
  charge: string | null;
  isChargeRefundable: boolean | null;
  /** Minor units, as every amount. */
  amount: number | null;
  currency: string | null;
  fee: number | null;
  reversalAmount: number | null;
  reversalTotal: number | null;
  reversalCurrency: string | null;
  customer: string | null;
  customerName: string | null;
  customerEmail: string | null;
  customerPurchaseIp: string | null;
  addressZip: string | null;
  addressLine1Check: Check | null;
  addressZipCheck: Check | null;
  cvcCheck: Check | null;
  statementDescriptor: string | null;
}

type Check = (typeof checks)[number];

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
