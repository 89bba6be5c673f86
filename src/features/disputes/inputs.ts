import type { CorrespondenceItem, FieldValue, PastPayment, Product } from '../../domain/evidence.js';
import type { EvidenceFileEntry } from '../../domain/evidence-files.js';
import type { Network } from '../../domain/networks.js';
import type { DisputeState } from '../../domain/states.js';
import type { Check, Kind, Processor, Reason } from '../../domain/vocabulary.js';

/** The card network, its own code and the processor's status word a client gives a dispute it makes. */
export interface NetworkFactsInput {
  network?: Network | null;
  network_reason_code?: string | null;
  processor_status?: string | null;
}

/**
 * What the dispute use cases are asked, as checked values: the evidence a client sends, whether to submit
 * or queue, a new dispute's attributes. The API's request schemas (api/inputs/disputes.ts) parse requests
 * into these; the names are the dispute object's (docs/api.md, "The dispute object").
 */

export interface EvidenceInput {
  /** A template id; null detaches the template. */
  template?: string | null;
  /** Merged into the stored fields: `null` or `""` removes a key. */
  fields?: Record<string, FieldValue>;
  products?: Product[];
  correspondence?: CorrespondenceItem[];
  past_payments?: PastPayment[];
  /** Replaces the whole list; each file must be an upload of the dispute's organisation and mode. */
  evidence_files?: EvidenceFileEntry[];
  reference_url?: string | null;
  account_id?: string | null;
  /** The charge to answer for, needed where the account's access is read-only. */
  charge?: string;
  /** Past the accept rules and the holds of the state table. */
  force: boolean;
}

export interface UpdateInput extends EvidenceInput {
  /** true queues the dispute, false takes a queued one out of the queue; absent leaves it be. */
  queue?: boolean;
  submit: boolean;
}

export interface SubmitInput extends EvidenceInput {
  queue: boolean;
  /** The connected account that answers the dispute, for disputes that name none. */
  account?: string;
}

export interface CreateInput extends EvidenceInput, NetworkFactsInput {
  id: string;
  charge: string;
  reason: Reason;
  charged_at: Date;
  disputed_at: Date;
  due_by: Date;
  currency: string;
  amount: number;
  customer?: string | null;
  processor?: Processor | null;
  state: 'needs_response' | 'warning_needs_response';
  reversal_currency?: string | null;
  fee?: number | null;
  reversal_amount?: number | null;
  reversal_total?: number | null;
  is_charge_refundable?: boolean | null;
  submitted_count: number;
  address_line1_check?: Check | null;
  address_zip_check?: Check | null;
  cvc_check?: Check | null;
  kind: Kind;
  submit: boolean;
  queue: boolean;
}

/**
 * Overrides for a generated test dispute; every other attribute is made up. Never compiling_evidence or
 * queued: only actions reach those.
 */
export interface TestDisputeInput extends NetworkFactsInput {
  id?: string;
  state: Exclude<DisputeState, 'compiling_evidence' | 'queued'>;
  reason?: Reason;
  kind: Kind;
  amount?: number;
  currency?: string;
  due_by?: Date;
  charge?: string;
  account?: string;
}
