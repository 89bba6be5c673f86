import { disputes } from '../../db/schema/index.js';
import { ApiError } from '../../domain/errors.js';
import { checkEvidenceSize } from '../../domain/evidence.js';
import { type DisputeState, decide } from '../../domain/states.js';
import { submitProblem } from '../../domain/submittable.js';
import { checkFieldValues, mergeFields } from '../../domain/templates.js';
import { postgresFileStorage } from '../files/storage.js';
import { applyArrivalRules } from '../rules/arrival.js';
import { prepareSubmission } from '../submissions/prepare.js';
import type { Caller } from '../tenancy.js';
import { recordDisputeEvent } from '../webhooks/events.js';
import {
  afterCommit,
  type DisputeDeps,
  now,
  refusalMessage,
  requireTemplate,
  reversalTotal,
  type StepResult,
  submitAt,
  write,
} from './commands.js';
import { documentProblem } from './document-size.js';
import { checkNamedFiles } from './evidence-files.js';
import type { CreateInput } from './inputs.js';
import type { DisputeOutcome } from './outcomes.js';
import { fetchProductImages } from './product-images.js';

/**
 * Creates a standalone dispute (`source: api`). With `submit` or `queue` the dispute must be submittable
 * at once; otherwise nothing is created, so a create either happens whole or not at all.
 */
export async function createDispute(
  deps: DisputeDeps,
  caller: Caller,
  input: CreateInput,
): Promise<DisputeOutcome> {
  const at = now(deps);
  // Fetched before the transaction, which never waits on the network; kept inside it.
  const storage = postgresFileStorage(deps.db);
  const images = await fetchProductImages(deps, storage, [], input.products ?? []);
  const result = await deps.db.transaction(async (tx): Promise<StepResult> => {
    const template = await requireTemplate(tx, caller, input.template ?? null);
    const values = {
      orgId: caller.orgId,
      livemode: caller.livemode,
      id: input.id,
      state: input.state,
      reason: input.reason,
      kind: input.kind,
      source: 'api',
      processor: input.processor ?? null,
      chargedAt: input.charged_at,
      disputedAt: input.disputed_at,
      dueBy: input.due_by,
      charge: input.charge,
      amount: input.amount,
      currency: input.currency,
      customer: input.customer ?? null,
      fee: input.fee ?? null,
      reversalAmount: input.reversal_amount ?? null,
      reversalTotal: input.reversal_total ?? reversalTotal(input.reversal_amount, input.fee),
      reversalCurrency: input.reversal_currency ?? null,
      isChargeRefundable: input.is_charge_refundable ?? null,
      submittedCount: input.submitted_count,
      addressLine1Check: input.address_line1_check ?? null,
      addressZipCheck: input.address_zip_check ?? null,
      cvcCheck: input.cvc_check ?? null,
      network: input.network ?? null,
      networkReasonCode: input.network_reason_code ?? null,
      processorStatus: input.processor_status ?? null,
      template: input.template ?? null,
      fields: checkFieldValues(template, mergeFields({}, input.fields)),
      products: input.products ?? [],
      productImages: await images.keep(tx, caller, []),
      correspondence: input.correspondence ?? [],
      pastPayments: input.past_payments ?? [],
      evidenceFiles: input.evidence_files ?? [],
      referenceUrl: input.reference_url ?? null,
      accountId: input.account_id ?? null,
      createdAt: at,
      updatedAt: at,
    };
    const { fields, products, correspondence, pastPayments } = values;
    checkEvidenceSize({ fields, products, correspondence, pastPayments });
    await checkNamedFiles(tx, caller, values, template, {
      evidenceFiles: input.evidence_files !== undefined,
      fields: true,
    });
    const [inserted] = await tx.insert(disputes).values(values).onConflictDoNothing().returning();
    if (!inserted) throw new ApiError('invalid_request', `A dispute with id '${input.id}' already exists.`);
    const [arrived = { dispute: inserted, template }] = await applyArrivalRules(
      tx,
      [{ dispute: inserted, template }],
      { force: input.force, now: at, logger: deps.logger },
    );
    const { dispute: created, template: attached } = arrived;
    // With the template the arrival rules attached, inside the transaction: a refusal undoes the insert.
    const oversized = documentProblem(created, attached, deps.documentLimits, at);
    if (oversized) throw oversized;
    await recordDisputeEvent(tx, 'dispute.created', created, attached);
    if (!input.submit && !input.queue) return { outcome: 'created', dispute: created, template: attached };

    // Rules act before submit and queue (force bypasses them, and then nothing holds). A dispute a rule
    // held (requires_review; accepted from 2020-02-28) is created as the rule left it, like every
    // create, and the submit or queue is not carried out: the same request on the dispute afterwards
    // would have been held.
    const action = input.queue ? 'queue' : 'submit';
    const decision = decide(created.state as DisputeState, action, {
      force: input.force,
      version: caller.version,
    });
    if (decision.outcome === 'refuse')
      throw new ApiError(decision.error, refusalMessage(decision.error, created));
    if (decision.outcome !== 'proceed') return { outcome: 'created', dispute: created, template: attached };

    // Unlike a submit of an existing dispute, nothing was saved before: a refusal undoes the create.
    const problem = submitProblem(created, attached, at);
    if (problem) throw problem;
    if (input.queue) {
      const queued = await write(tx, created, {
        state: 'queued',
        submitAt: submitAt(created.dueBy, caller.queueLeadMinutes, at),
      });
      await recordDisputeEvent(tx, 'dispute.updated', queued, attached);
      return { outcome: 'created', dispute: queued, template: attached };
    }
    const prepared = await prepareSubmission(tx, created, deps.adapters.forDispute(created).name);
    return {
      outcome: 'submitted',
      dispute: prepared.dispute,
      template: attached,
      submissionId: prepared.submissionId,
    };
  });
  return afterCommit(deps, caller, result, null);
}
