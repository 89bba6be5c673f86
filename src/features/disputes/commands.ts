import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { disputes } from '../../db/schema/index.js';
import type { DocumentLimits } from '../../domain/document-size.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { checkEvidenceSize } from '../../domain/evidence.js';
import { disputeFacts } from '../../domain/rules.js';
import { type Action, type DisputeState, decide } from '../../domain/states.js';
import { submitProblem } from '../../domain/submittable.js';
import { checkFieldValues, mergeFields } from '../../domain/templates.js';
import { isOn } from '../../domain/versions.js';
import type { Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import { accountOfDispute } from '../accounts/connections.js';
import { acceptedByRules } from '../rules/rules.js';
import type { Submitter } from '../submissions/port.js';
import { prepareSubmission } from '../submissions/prepare.js';
import type { Caller } from '../tenancy.js';
import { recordDisputeEvent } from '../webhooks/events.js';
import { documentProblem } from './document-size.js';
import { checkNamedFiles } from './evidence-files.js';
import type { EvidenceInput, SubmitInput, UpdateInput } from './inputs.js';
import type { DisputeOutcome } from './outcomes.js';
import { imagesForDispute, type ProductImageFetcher } from './product-images.js';
import { type DisputeRow, findDispute, loadTemplate, lockDispute, type TemplateRow } from './records.js';

/**
 * Dispute use cases: update, submit, queue, accept, create. Each runs in one transaction that locks the
 * dispute, asks the state table what the action may do, writes the change with its outbox event, and
 * only then (outside the transaction) hands a prepared submission to the submitter.
 */

export interface DisputeDeps {
  db: Db;
  adapters: AdapterRegistry;
  submitter: Submitter;
  now?: () => Date;
  /** Where arrival rules warn of a template that no longer exists. */
  logger?: Logger;
  /** DOCUMENT_MAX_CHARACTERS and DOCUMENT_MAX_PAGES: what a dispute's evidence and template may make. */
  documentLimits: DocumentLimits;
  /** Fetches products' `image` URLs when products are saved (docs/api.md, "Files", "Product images"). */
  productImages: ProductImageFetcher;
  /** FILES_MAX_BYTES: the bytes of files one organisation may keep in each mode, product images included. */
  filesMaxBytes: number;
}

type Change = Partial<typeof disputes.$inferInsert>;

export async function retrieveDispute(db: Db, caller: Caller, id: string) {
  return findDispute(db, caller, id);
}

export async function updateDispute(deps: DisputeDeps, caller: Caller, id: string, input: UpdateInput) {
  if (input.submit) return submitDispute(deps, caller, id, { ...input, queue: input.queue ?? false });
  if (input.queue === true) return queueDispute(deps, caller, id, input);
  return inTransaction(deps, caller, id, 'update', input, async ({ tx, dispute, template, change }) => {
    if (dispute.state === 'queued') {
      if (input.queue === false) {
        Object.assign(change, { state: 'needs_response', submitAt: null });
      } else {
        // A queued dispute is submitted unattended later, so an edit must leave it submittable.
        const problem = submitProblem({ ...dispute, ...change }, template, now(deps));
        if (problem) throw problem;
      }
    }
    const updated = await write(tx, dispute, change);
    if (updated.state !== dispute.state) await recordDisputeEvent(tx, 'dispute.updated', updated, template);
    return { outcome: 'updated', dispute: updated, template };
  });
}

export async function submitDispute(
  deps: DisputeDeps,
  caller: Caller,
  id: string,
  input: SubmitInput,
): Promise<DisputeOutcome> {
  if (input.queue) return queueDispute(deps, caller, id, input);
  return inTransaction(deps, caller, id, 'submit', input, async (step) => {
    const stopped = await heldOrRefused(deps, step);
    if (stopped) return stopped;
    const { tx, dispute, template, change } = step;
    const saved = await write(tx, dispute, change);
    const prepared = await prepareSubmission(tx, saved, deps.adapters.forDispute(saved).name);
    return {
      outcome: 'submitted',
      dispute: prepared.dispute,
      template,
      submissionId: prepared.submissionId,
    };
  });
}

async function queueDispute(deps: DisputeDeps, caller: Caller, id: string, input: SubmitInput | UpdateInput) {
  return inTransaction(deps, caller, id, 'queue', input, async (step) => {
    const stopped = await heldOrRefused(deps, step);
    if (stopped) return stopped;
    const { tx, dispute, template, change } = step;
    const at = submitAt(dispute.dueBy, caller.queueLeadMinutes, now(deps));
    const queued = await write(tx, dispute, { ...change, state: 'queued', submitAt: at });
    await recordDisputeEvent(tx, 'dispute.updated', queued, template);
    return { outcome: 'queued', dispute: queued, template };
  });
}

export async function acceptDispute(deps: DisputeDeps, caller: Caller, id: string): Promise<DisputeOutcome> {
  return inTransaction(
    deps,
    caller,
    id,
    'accept',
    {},
    async ({ tx, dispute, template, change, decision }) => {
      if (decision === 'unchanged') return { outcome: 'unchanged', dispute, template };
      // Accepting is bookkeeping here: nothing goes to the processor, and a queued submission is dropped.
      Object.assign(change, { state: 'accepted', submitAt: null });
      const updated = await write(tx, dispute, change);
      await recordDisputeEvent(tx, 'dispute.updated', updated, template);
      return { outcome: 'accepted', dispute: updated, template };
    },
  );
}

/**
 * What a step leaves to do once its transaction has committed: run the submission it prepared, or throw
 * a refusal found after the client's parameters were saved (what was saved stays saved when a submit
 * then fails, docs/api.md, "Endpoints").
 */
export type StepResult = (DisputeOutcome & { submissionId?: string }) | { refusal: ApiError };

interface Step {
  tx: Tx;
  dispute: DisputeRow;
  template: TemplateRow | null;
  /** The client's evidence, checked and merged; the step adds its own columns before writing. */
  change: Change;
  decision: 'proceed' | 'hold' | 'unchanged';
}

/** Locks the dispute, applies the state table, and checks the evidence, all before `step` writes. */
async function inTransaction(
  deps: DisputeDeps,
  caller: Caller,
  id: string,
  action: Action,
  input: Partial<EvidenceInput> & { account?: string },
  step: (step: Step) => Promise<StepResult>,
): Promise<DisputeOutcome> {
  // Fetched before the transaction, which never waits on the network; kept inside it.
  const images = input.products && (await imagesForDispute(deps, caller, id, input.products));
  const { result, before } = await deps.db.transaction(async (tx) => {
    const { dispute, template: stored } = await lockDispute(tx, caller, id);
    const decision = decide(dispute.state as DisputeState, action, {
      force: input.force ?? false,
      version: caller.version,
    });
    if (decision.outcome === 'refuse')
      throw new ApiError(decision.error, refusalMessage(decision.error, dispute));
    const { change, template } = await checkEvidence(tx, caller, dispute, stored, input);
    if (images) change.productImages = await images.keep(tx, caller, dispute.productImages);
    // Refused before anything is written (docs/api.md, "The size of the response document"): a request
    // that sends evidence, a template or a reference URL, which are saved whatever happens next, and a
    // submit or queue that goes ahead. A request that sends none of them and renders nothing is not: an
    // update that takes a dispute out of the queue, a repeated submit, one a rule holds or accepts.
    const sendsEvidence = documentColumns.some((column) => column in change);
    const checkSize = () => {
      const problem = documentProblem({ ...dispute, ...change }, template, deps.documentLimits, now(deps));
      if (problem) throw problem;
    };
    if (action !== 'accept' && sendsEvidence) checkSize();
    if (action !== 'accept') await requireChargeWhenReadOnly(tx, { ...dispute, ...change });
    if (await acceptedByRule(tx, caller, action, dispute, change, input.force ?? false, now(deps))) {
      // The client's parameters are saved with the acceptance; a submit or queue is held as an accepted
      // dispute's is from 2020-02-28, and a queued dispute loses its pending submission.
      const accepted = await write(tx, dispute, { ...change, state: 'accepted', submitAt: null });
      await recordDisputeEvent(tx, 'dispute.updated', accepted, template);
      const outcome = action === 'update' ? 'updated' : 'held';
      return { result: { outcome, dispute: accepted, template } satisfies StepResult, before: dispute };
    }
    if ((action === 'submit' || action === 'queue') && decision.outcome === 'proceed' && !sendsEvidence)
      checkSize();
    return {
      result: await step({ tx, dispute, template, change, decision: decision.outcome }),
      before: dispute,
    };
  });
  return afterCommit(deps, caller, result, before);
}

/**
 * Accept rules on an update, submit or queue (docs/api.md, "Versions", gate 2020-02-28; before it rules apply to
 * new disputes only). They act where accepting would proceed by the state table, on the dispute as the
 * request leaves it, unless the client forces; review rules never apply here (features/rules/rules.ts).
 */
async function acceptedByRule(
  tx: Tx,
  caller: Caller,
  action: Action,
  dispute: DisputeRow,
  change: Change,
  force: boolean,
  at: Date,
): Promise<boolean> {
  if (action === 'accept' || force || !isOn(caller.version, 'acceptedNeedsForce')) return false;
  const accepting = decide(dispute.state as DisputeState, 'accept', {
    force: false,
    version: caller.version,
  });
  if (accepting.outcome !== 'proceed') return false;
  return acceptedByRules(tx, caller, disputeFacts({ ...dispute, ...change } as DisputeRow), at);
}

/**
 * Where a submit and a queue stop before their own work: the state table holds the dispute (the change is
 * saved), or the submit checks refuse it.
 */
async function heldOrRefused(deps: DisputeDeps, step: Step): Promise<StepResult | undefined> {
  const { tx, dispute, template, change } = step;
  if (step.decision === 'hold')
    return { outcome: 'held', dispute: await write(tx, dispute, change), template };
  const refusal = submitProblem({ ...dispute, ...change }, template, now(deps));
  return refusal ? refuseAfterSaving(tx, dispute, change, refusal) : undefined;
}

/**
 * Saves the client's parameters and defers the refusal to after the commit (docs/api.md, "Endpoints") — except on
 * a queued dispute, which must stay submittable for its unattended submission: there nothing is saved.
 */
async function refuseAfterSaving(
  tx: Tx,
  dispute: DisputeRow,
  change: Change,
  refusal: ApiError,
): Promise<StepResult> {
  if (dispute.state === 'queued') throw refusal;
  await write(tx, dispute, change);
  return { refusal };
}

export async function afterCommit(
  deps: DisputeDeps,
  caller: Caller,
  result: StepResult,
  before: DisputeRow | null,
): Promise<DisputeOutcome> {
  if ('refusal' in result) throw result.refusal;
  await reschedule(deps.submitter, before, result.dispute);
  if (result.submissionId) return runPrepared(deps, caller, result.dispute.id, result.submissionId);
  return { outcome: result.outcome, dispute: result.dispute, template: result.template };
}

/**
 * Keeps one delayed job per queued dispute, at its `submit_at`: a dispute that left the queue or moved in
 * it loses its old job, one that entered or moved gets a new one. Edits that keep the moment change
 * nothing: the job reads the dispute when it runs.
 */
async function reschedule(submitter: Submitter, before: DisputeRow | null, after: DisputeRow): Promise<void> {
  const slot = (dispute: DisputeRow | null) =>
    dispute?.state === 'queued' && dispute.submitAt ? { uid: dispute.uid, submitAt: dispute.submitAt } : null;
  const was = slot(before);
  const is = slot(after);
  if (was?.submitAt.getTime() === is?.submitAt.getTime()) return;
  if (was) await submitter.unschedule(was);
  if (is) await submitter.schedule(is);
}

const evidenceColumns = ['fields', 'products', 'correspondence', 'pastPayments'] as const;
const documentColumns = [...evidenceColumns, 'evidenceFiles', 'template', 'referenceUrl'] as const;

async function checkEvidence(
  tx: Tx,
  caller: Caller,
  dispute: DisputeRow,
  stored: TemplateRow | null,
  input: Partial<EvidenceInput> & { account?: string },
): Promise<{ change: Change; template: TemplateRow | null }> {
  const template = input.template === undefined ? stored : await requireTemplate(tx, caller, input.template);
  const change: Change = {};
  if (input.template !== undefined) change.template = input.template;
  if (input.fields !== undefined || input.template !== undefined) {
    change.fields = checkFieldValues(template, mergeFields(dispute.fields, input.fields));
  }
  if (input.products !== undefined) change.products = input.products;
  if (input.correspondence !== undefined) change.correspondence = input.correspondence;
  if (input.past_payments !== undefined) change.pastPayments = input.past_payments;
  if (input.evidence_files !== undefined) change.evidenceFiles = input.evidence_files;
  if (input.reference_url !== undefined) change.referenceUrl = input.reference_url;
  if (input.account_id !== undefined) change.accountId = input.account_id;
  // A client-supplied charge fills in for processors whose access is read-only; it never replaces one.
  if (input.charge !== undefined && dispute.charge === null) change.charge = input.charge;
  // Likewise the connected account that answers a dispute that names none; a named one is the processor's.
  if (input.account !== undefined && input.account !== dispute.account) {
    if (dispute.account !== null) {
      throw new ApiError(
        'invalid_request',
        `Dispute '${dispute.id}' belongs to account '${dispute.account}'.`,
      );
    }
    change.account = input.account;
  }
  if (evidenceColumns.some((column) => column in change)) {
    const { fields, products, correspondence, pastPayments } = { ...dispute, ...change };
    checkEvidenceSize({ fields, products, correspondence, pastPayments });
  }
  await checkNamedFiles(tx, caller, { ...dispute, ...change }, template, {
    evidenceFiles: 'evidenceFiles' in change,
    fields: 'fields' in change,
  });
  return { change, template };
}

/**
 * Read-only access (spec 4.5): the processor does not let this service read the account's charges, so the
 * client names the disputed charge (`charge`) before its dispute can be updated or submitted; the adapter
 * answers for that charge.
 */
async function requireChargeWhenReadOnly(tx: Tx, dispute: DisputeRow): Promise<void> {
  if (dispute.charge !== null || dispute.account === null) return;
  const account = await accountOfDispute(tx, dispute);
  if (account?.access !== 'read_only') return;
  throw new ApiError(
    'invalid_request',
    `Dispute '${dispute.id}' belongs to read-only account '${dispute.account}': send its \`charge\`.`,
  );
}

export async function requireTemplate(
  tx: Tx,
  caller: Caller,
  id: string | null,
): Promise<TemplateRow | null> {
  if (id === null) return null;
  const template = await loadTemplate(tx, caller, id);
  if (!template) throw notFound.template(id, true);
  return template;
}

/** Queued disputes go out `queue lead` before the deadline, or at once when that moment has passed. */
export function submitAt(dueBy: Date | null, leadMinutes: number, at: Date): Date {
  if (!dueBy) return at;
  const planned = new Date(dueBy.getTime() - leadMinutes * 60_000);
  return planned.getTime() > at.getTime() ? planned : at;
}

export function reversalTotal(
  amount: number | null | undefined,
  fee: number | null | undefined,
): number | null {
  return amount === undefined || amount === null ? null : amount + (fee ?? 0);
}

const refusalMessages: Partial<Record<ApiError['type'], string>> = {
  dispute_closed: 'is closed',
  dispute_submitted: 'has already been submitted',
  dispute_uneditable: 'cannot be changed',
};

export function refusalMessage(error: ApiError['type'], dispute: DisputeRow): string {
  return `Dispute '${dispute.id}' ${refusalMessages[error] ?? 'cannot take this action'} (state ${dispute.state}).`;
}

/** Writes the change (the database bumps `version`); an empty change writes nothing, so a refusal leaves no trace. */
export async function write(tx: Tx, dispute: DisputeRow, change: Change): Promise<DisputeRow> {
  if (Object.keys(change).length === 0) return dispute;
  const [updated] = await tx
    .update(disputes)
    .set({ ...change, updatedAt: new Date() })
    .where(eq(disputes.uid, dispute.uid))
    .returning();
  if (!updated) throw new Error(`dispute ${dispute.uid} vanished inside its transaction`);
  return updated;
}

async function runPrepared(
  deps: DisputeDeps,
  caller: Caller,
  id: string,
  submissionId: string,
): Promise<DisputeOutcome> {
  const result = await deps.submitter.submit(submissionId);
  const { dispute, template } = await findDispute(deps.db, caller, id);
  if (result.status === 'failed')
    throw new ApiError('processor_error', `The processor did not accept the evidence: ${result.message}`);
  return { outcome: result.status === 'succeeded' ? 'submitted' : 'in_progress', dispute, template };
}

export function now(deps: Pick<DisputeDeps, 'now'>): Date {
  return deps.now?.() ?? new Date();
}
