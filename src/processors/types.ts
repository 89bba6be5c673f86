import type { CompellingEvidence } from '../domain/compelling-evidence.js';
import type { EvidencePackage, PastPayment } from '../domain/evidence.js';
import type { EvidenceFileCategory, EvidenceLimits, FileType } from '../domain/evidence-files.js';
import { Failure } from '../domain/failure.js';
import type { Network } from '../domain/networks.js';
import type { DisputeState } from '../domain/states.js';
import type { checks, kinds, ProcessorResolution, Reason } from '../domain/vocabulary.js';
import type {
  AlertPage,
  ListAlertsRequest,
  NormalizedAlert,
  RefundChargeRequest,
  RefundChargeResult,
} from './alert-types.js';

/**
 * Terminology:
 * - adapter: the code that speaks one processor's API (or stands in for one: `mock`, `standalone`).
 * - submission: one attempt at sending a dispute's evidence; its id is the idempotency key.
 * - cursor: the processor's position in its list of changed disputes, opaque to everyone but the adapter.
 *
 * Adapters know one processor and nothing of this service's database: they get plain values and answer
 * with plain values or a ProcessorError.
 */

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

/**
 * The connected account an adapter call is for: who it is, its credentials opened from their sealed form
 * (the JSON document given to `account connect`; null for the mock processor and standalone disputes),
 * and where its processor answers. Never logged, never in a job's data.
 */
export interface ProcessorConnection {
  account: AccountReference;
  credentials: string | null;
  /** The account's override of the processor's host (`--base-url`); null for the default by mode. */
  baseUrl: string | null;
  /** Read-only access (spec 4.5): the processor cannot tell us the charge, so the client names it. */
  readOnly: boolean;
}

export interface ConnectedRequest {
  connection: ProcessorConnection;
}

export interface SubmitEvidenceRequest extends ConnectedRequest {
  dispute: DisputeReference;
  /** The client's evidence as it stood when the submission was made. */
  evidence: EvidencePackage;
  /** The same rendered for a reviewer: the evidence dictionary and the PDF, for processors that take them. */
  response: ResponsePackage;
  /**
   * The dispute's evidence files with their bytes, in the order `fileReferences` gives
   * (domain/evidence-files.ts). The adapter sends those its processor has a slot for
   * (`evidenceLimits.slots`); the response document shows the others.
   */
  files: AttachedFile[];
  /** Stable across retries of the same submission: processors that support it deduplicate on it. */
  idempotencyKey: string;
  /**
   * This service's Visa CE 3.0 verdict on `evidence` (domain/compelling-evidence.ts), null where the
   * program does not apply: a processor with its own CE 3.0 fields sends them when `qualified`.
   */
  compellingEvidence: CompellingEvidence | null;
  /**
   * The organisation's word on Visa compliance disputes (`org settings --visa-compliance-fee`): only
   * `accept` lets an adapter acknowledge the network's fee.
   */
  visaComplianceFee: 'accept' | 'refuse';
}

/** One evidence file as an adapter sends it. */
export interface AttachedFile {
  /** The file's id here (`file_…`): stable, so a key derived from it and the submission is too. */
  id: string;
  category: EvidenceFileCategory;
  description: string | null;
  filename: string;
  type: FileType;
  size: number;
  /** A PDF's page count; null for images. */
  pages: number | null;
  sha256: string;
  bytes: Buffer;
}

/** What a processor takes as evidence: its home is the domain, where the preview's warnings read it. */
export type { EvidenceLimits };

/** What src/features/responses/documents.ts renders from a submission (docs/api.md, "Templates and response documents"). */
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
  /**
   * `portal`: the processor publishes no API to answer disputes (Amex, Worldpay): nothing was sent, and
   * the merchant uploads the response package in the processor's portal. Default `sent`.
   */
  delivery?: 'sent' | 'portal';
}

export interface GetDisputeRequest extends ConnectedRequest {
  id: string;
}

export interface AcceptDisputeRequest extends ConnectedRequest {
  dispute: DisputeReference;
  /** Stable across retries of the same acceptance. */
  idempotencyKey: string;
}

export interface PastPaymentsRequest extends ConnectedRequest {
  dispute: DisputeReference;
  /** At most this many (docs/api.md, "The dispute object": past_payments holds at most 10). */
  limit: number;
  /**
   * Visa CE 3.0 applies to the dispute (domain/compelling-evidence.ts): payments in its window are
   * preferred (domain/past-payment-choice.ts). Absent: false.
   */
  compellingEvidence?: boolean;
}

/** A processor's own webhook as received on `POST /processor-hooks/:processor/:account`. */
export interface PushRequest extends ConnectedRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received: signatures are over these bytes. */
  body: Buffer;
}

/**
 * What a verified push tells: disputes to fetch again now (processors with a get call), and disputes the
 * push itself describes in full (processors that only push: Adyen, Worldpay). `reply` is what the
 * processor expects back (Adyen wants `[accepted]`, Braintree's challenge its answer).
 */
export interface PushResult {
  refresh: string[];
  disputes: NormalizedDispute[];
  /**
   * The attributes of `disputes` the processor's signature does not cover (Adyen signs a few fields of a
   * notification): a replayed push could carry anything in them, so they only fill what a stored dispute
   * does not know, and change it only with news that opens a later stage (features/mirroring/upsert.ts).
   */
  unsigned?: readonly DisputeAttribute[];
  /** Alerts the push describes in full (Stripe's early fraud warning events, Adyen's fraud notifications). */
  alerts?: NormalizedAlert[];
  reply?: { contentType: string; body: string };
}

/** A push whose signature does not verify, or that cannot be read: answered 400, nothing enqueued. */
export class PushRejectedError extends Failure {
  override readonly name = 'PushRejectedError';
  readonly permanent = true;
}

/** What an adapter can do, for the registry, the features and the processor notes (docs/operations.md, "Processors"). */
export interface Capabilities {
  /** Lists changed disputes: connected accounts are polled. */
  list: boolean;
  /** Fetches one dispute: a push is followed by a fetch. */
  get: boolean;
  /** `api`: evidence goes to the processor; `portal`: the merchant uploads the package (delivery portal). */
  submit: 'api' | 'portal';
  /** The PDF reaches the processor as a file. */
  fileUpload: boolean;
  /** Acceptance is forwarded to the processor. */
  accept: boolean;
  /** Accounts may be connected read-only (spec 4.5). */
  readOnly: boolean;
  /** Fetches past payments made with the disputed card. */
  pastPayments: boolean;
  /** Receives the processor's own signed webhooks. */
  push: boolean;
  /** The kinds of dispute the processor reports. */
  kinds: readonly (typeof kinds)[number][];
  /** Lists pre-dispute warnings (alerts): connected accounts' alerts are polled too. */
  alerts: boolean;
  /** Refunds a charge in full (an alert's refund). */
  refund: boolean;
}

export interface ProcessorAdapter {
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly evidenceLimits: EvidenceLimits;
  /**
   * Checks credentials given to `account connect` (their shape, not whether the processor takes them),
   * and answers a message saying what is wrong, or null. Adapters that need none take none.
   */
  checkCredentials?(credentials: string | null): string | null;
  submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult>;
  /**
   * One page of the account's disputes changed since `cursor`, in the processor's own order (a dispute
   * listed twice in a page counts once, its later entry winning). Present on every
   * adapter whose processor has a list API; the mirror job pages through it (docs/architecture.md,
   * "The two flows"). Absent where there is nothing to mirror (standalone `api` disputes, processors without one).
   */
  listDisputes?(request: ListDisputesRequest): Promise<DisputePage>;
  /** The dispute as the processor holds it now; null when it knows no such dispute. */
  getDispute?(request: GetDisputeRequest): Promise<NormalizedDispute | null>;
  /** Tells the processor the merchant accepts the dispute (concedes it). */
  acceptDispute?(request: AcceptDisputeRequest): Promise<void>;
  /** Successful, undisputed earlier payments made with the disputed card, newest first. */
  pastPayments?(request: PastPaymentsRequest): Promise<PastPayment[]>;
  /** Verifies and reads one of the processor's webhooks; throws PushRejectedError when it does not verify. */
  parsePush?(request: PushRequest): Promise<PushResult>;
  /** One page of the account's alerts changed since `cursor`, as listDisputes pages disputes. */
  listAlerts?(request: ListAlertsRequest): Promise<AlertPage>;
  /**
   * Refunds the charge in full under `idempotencyKey`, and answers the processor's refund id. A refusal
   * is a permanent ProcessorError carrying the processor's reason; a lost answer a transient one.
   */
  refundCharge?(request: RefundChargeRequest): Promise<RefundChargeResult>;
  /**
   * Reads the processor's dispute report file (CSV), for processors without a list call (`dispute
   * import`); throws ReportError naming the line of the first row it cannot read.
   */
  readReport?(csv: string): NormalizedDispute[];
}

/** A report file row that cannot be read: nothing of the file is imported. */
export class ReportError extends Failure {
  override readonly name = 'ReportError';
  readonly permanent = true;
}

/** An adapter whose accounts are polled: it lists disputes (the registry's canPoll). */
export type PollableAdapter = ProcessorAdapter & Required<Pick<ProcessorAdapter, 'listDisputes'>>;

/** The connected account a listing is for, in plain values. */
export interface AccountReference {
  /** Stable for the account's life (connected_accounts.uid). */
  uid: string;
  /** The account's name, shown as the dispute's `account` (`default` for an organisation's first one). */
  id: string;
  livemode: boolean;
}

export interface ListDisputesRequest extends ConnectedRequest {
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
  /** The card network, read from the processor's spelling in its mapping.ts; null where it tells none. */
  network: Network | null;
  /** The network's own reason code as the processor reports it (`10.4`, `4837`, `F29`), unmapped. */
  networkReasonCode: string | null;
  /** The processor's own word for where the dispute stands, as it reports it (docs/api.md, "The dispute object"). */
  processorStatus: string | null;
  /**
   * The pre-dispute program that resolved the dispute, as the processor tells it: `rdr` for Visa's Rapid
   * Dispute Resolution (Stripe's `prevented`, Checkout.com's `rapid_dispute_resolution`, Braintree's
   * `VISA_RDR`); null otherwise.
   */
  resolution: ProcessorResolution | null;
  /** The processor's own Visa CE 3.0 verdict (Stripe's enhanced_eligibility status), where it gives one. */
  compellingEvidenceProcessorStatus: string | null;
}

type Check = (typeof checks)[number];

/** What a dispute tells besides its id and state. */
export type DisputeAttribute = Exclude<keyof NormalizedDispute, 'id' | 'state'>;

/**
 * A processor's refusal or failure. `retryable` says whether sending the same request again may succeed
 * (timeouts, dropped connections, 5xx, 429, an open circuit, our own rate limit): transient. Anything else
 * (a 4xx refusal, an answer we cannot read) is permanent until someone changes something. `retryable` is
 * the answer's own word, recorded with a failed submission; `permanent` is its other side, as every
 * error says it (src/domain/failure.ts). `status` and `excerpt` are the processor's own answer, for
 * on-call: they reach the job's failure reason.
 */
export class ProcessorError extends Failure {
  override readonly name: string = 'ProcessorError';
  readonly processor: string;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** Seconds the processor asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** The start of the processor's answer, credentials removed. */
  readonly excerpt: string | undefined;
  /** The kind of refusal the processor named, where its answer names one (Stripe's `error.type`). */
  readonly code: string | undefined;

  constructor(
    processor: string,
    message: string,
    options: {
      retryable: boolean;
      status?: number;
      retryAfterSeconds?: number;
      excerpt?: string;
      code?: string;
    },
  ) {
    super(message);
    this.processor = processor;
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.excerpt = options.excerpt;
    this.code = options.code;
  }

  get permanent(): boolean {
    return !this.retryable;
  }

  /**
   * The failure as on-call reads it in a job's failure reason and `account list`: who answered, with what
   * status, and the start of its answer.
   */
  get reason(): string {
    const status = this.status === undefined ? '' : ` ${this.status}`;
    const excerpt = this.excerpt ? ` Answer: ${this.excerpt}` : '';
    const kind = this.retryable ? 'transient' : 'permanent';
    return `${this.processor}${status} (${kind}): ${this.message}${excerpt}`;
  }
}
