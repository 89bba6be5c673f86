import { z } from 'zod';
import { correspondence, fields, pastPayments, products } from '../../domain/evidence.js';
import { evidenceFiles } from '../../domain/evidence-files.js';
import { networkReasonCodePattern, networkReasonCodeRule, networks } from '../../domain/networks.js';
import { disputeStates } from '../../domain/states.js';
import {
  absoluteUrl,
  boolean,
  currency,
  integer,
  nonNegativeInteger,
  resourceId,
  text,
  timestamp,
} from '../../domain/values.js';
import { checks, kinds, processors, reasons } from '../../domain/vocabulary.js';
import type {
  CreateInput,
  EvidenceInput,
  SubmitInput,
  TestDisputeInput,
  UpdateInput,
} from '../../features/disputes/inputs.js';

/**
 * Request parameters for the dispute endpoints (docs/api.md, "Endpoints"), shared by update, submit and create.
 * Each schema parses a request into what its use case takes (features/disputes/inputs.ts).
 */

const referenceUrl = absoluteUrl.nullable();

export const evidenceInput = z.object({
  template: resourceId.nullable().optional(),
  fields: fields.optional(),
  products: products.optional(),
  correspondence: correspondence.optional(),
  past_payments: pastPayments.optional(),
  evidence_files: evidenceFiles.optional(),
  reference_url: referenceUrl.optional(),
  account_id: text(255).nullable().optional(),
  /** The charge to answer for, needed where the account's access is read-only. */
  charge: text(255).optional(),
  force: boolean.default(false),
}) satisfies z.ZodType<EvidenceInput>;

export const updateInput = evidenceInput.extend({
  queue: boolean.optional(),
  submit: boolean.default(false),
}) satisfies z.ZodType<UpdateInput>;

export const submitInput = evidenceInput.extend({
  queue: boolean.default(false),
  /** The connected account that answers the dispute, for disputes that name none. */
  account: text(255).optional(),
}) satisfies z.ZodType<SubmitInput>;

const check = z.enum(checks).nullable().optional();

/** The card network, its code and the processor's status word, as a client may give them (docs/api.md, "Endpoints"). */
const networkFacts = {
  network: z.enum(networks).nullable().optional(),
  network_reason_code: z
    .string()
    .regex(networkReasonCodePattern, networkReasonCodeRule)
    .nullable()
    .optional(),
  processor_status: text(100).min(1, 'must not be empty').nullable().optional(),
};

export const createInput = evidenceInput.extend({
  id: resourceId,
  charge: text(255),
  reason: z.enum(reasons),
  charged_at: timestamp,
  disputed_at: timestamp,
  due_by: timestamp,
  currency,
  amount: nonNegativeInteger,
  customer: text(255).nullable().optional(),
  processor: z.enum(processors).nullable().optional(),
  state: z.enum(['needs_response', 'warning_needs_response']).default('needs_response'),
  reversal_currency: currency.nullable().optional(),
  fee: nonNegativeInteger.nullable().optional(),
  reversal_amount: integer.nullable().optional(),
  reversal_total: integer.nullable().optional(),
  is_charge_refundable: boolean.nullable().optional(),
  submitted_count: nonNegativeInteger
    .pipe(z.number().max(2_147_483_647, 'must be at most 2147483647'))
    .default(0),
  address_line1_check: check,
  address_zip_check: check,
  cvc_check: check,
  kind: z.enum(kinds).default('chargeback'),
  ...networkFacts,
  submit: boolean.default(false),
  queue: boolean.default(false),
}) satisfies z.ZodType<CreateInput>;

/** Optional overrides for a generated test dispute; every other attribute is made up. */
export const testDisputeInput = z.object({
  id: resourceId.optional(),
  /**
   * Any state but the two only actions reach: compiling_evidence (a submission in flight) and queued (a
   * submittable dispute with its moment of submission); queue a generated dispute through the API instead.
   */
  state: z.enum(disputeStates).exclude(['compiling_evidence', 'queued']).default('needs_response'),
  reason: z.enum(reasons).optional(),
  kind: z.enum(kinds).default('chargeback'),
  amount: nonNegativeInteger.optional(),
  currency: currency.optional(),
  due_by: timestamp.optional(),
  charge: text(255).optional(),
  account: text(255).optional(),
  ...networkFacts,
}) satisfies z.ZodType<TestDisputeInput>;
