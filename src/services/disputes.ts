import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { preparedFor } from '../db/prepared.js';
import { anyOf } from '../db/schema/columns.js';
import { disputes, templates } from '../db/schema/index.js';
import type { CreateInput, EvidenceInput, SubmitInput, UpdateInput } from '../domain/dispute-input.js';
import { ApiError, notFound } from '../domain/errors.js';
import { checkEvidenceSize } from '../domain/evidence.js';
import { disputeFacts } from '../domain/rules.js';
import { type Action, type DisputeState, decide } from '../domain/states.js';
import { submitProblem } from '../domain/submittable.js';
import { checkFieldValues, mergeFields } from '../domain/templates.js';
import { type ApiVersion, isOn } from '../domain/versions.js';
import type { Logger } from '../logger.js';
import type { AdapterRegistry } from '../processors/registry.js';
import { applyArrivalRules } from './arrival-rules.js';
import type { Principal } from './authenticate.js';
import {
  type DisputeRow,
  findDispute,
  loadTemplate,
  loadTemplates,
  lockDispute,
  ownedBy,
  type TemplateRow,
} from './dispute-records.js';
import { recordDisputeEvent, recordDisputeEvents } from './events.js';
import { beyond, type PageQuery, pageOrder, planPage } from './paging.js';
import { accountOfDispute } from './processor-connections.js';
import { acceptedByRules } from './rules.js';
import type { Submitter } from './submissions/port.js';
import { prepareSubmission, prepareSubmissions } from './submissions/prepare.js';
import type { Claimed } from './submissions/records.js';

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
}

/** Who asks, and under which API version (the request's header or the organisation's default). */
export interface Caller extends Principal {
  version: ApiVersion;
}

export interface DisputeOutcome {
  status: 200 | 201 | 202;
  dispute: DisputeRow;
  template: TemplateRow | null;
}

type Change = Partial<typeof disputes.$inferInsert>;

export async function retrieveDispute(db: Db, caller: Caller, id: string) {
  return findDispute(db, caller, id);
}

export interface ListQuery extends PageQuery {
  states?: DisputeState[];
  account?: string;
}

/** What a dispute object derives from: its row's version and its template's (see DisputeObjectCache). */
export interface DisputeStamp {
  uid: string;
  version: number;
  templateUid: string | null;
  templateVersion: number | null;
}

const placeholder = sql.placeholder;

/**
 * The page of stamps as one prepared statement per direction. Filters are nullable parameters, and a first
 * page pages from `infinity`, so one shape serves every list: drizzle builds it once, and the row
 * comparison against the cursor stays a condition on the list index for every page.
 *
 * The page is cut from the index first and joined to its templates after: joining first lets the planner
 * hash-join and sort the whole tenant.
 */
const stampPage = (backwards: boolean) =>
  preparedFor((db) => {
    const order = pageOrder(backwards);
    const page = db
      .select({
        uid: disputes.uid,
        version: disputes.version,
        orgId: disputes.orgId,
        livemode: disputes.livemode,
        template: disputes.template,
        createdAt: disputes.createdAt,
        id: disputes.id,
      })
      .from(disputes)
      .where(
        and(
          eq(disputes.orgId, placeholder('orgId')),
          eq(disputes.livemode, placeholder('livemode')),
          beyond(disputes.createdAt, disputes.id, backwards, [
            sql`${placeholder('cursorCreatedAt')}::timestamptz`,
            sql`${placeholder('cursorId')}::text`,
          ]),
          sql`(${placeholder('states')}::text[] is null or ${disputes.state} = any(${placeholder('states')}::text[]))`,
          sql`(${placeholder('account')}::text is null or ${disputes.account} = ${placeholder('account')}::text)`,
        ),
      )
      .orderBy(order(disputes.createdAt), order(disputes.id))
      .limit(placeholder('limit'))
      .as('page');
    return db
      .select({
        uid: page.uid,
        version: page.version,
        templateUid: templates.uid,
        templateVersion: templates.version,
      })
      .from(page)
      .leftJoin(
        templates,
        and(
          eq(templates.orgId, page.orgId),
          eq(templates.livemode, page.livemode),
          eq(templates.id, page.template),
        ),
      )
      .orderBy(order(page.createdAt), order(page.id))
      .prepare(backwards ? 'list_disputes_newer' : 'list_disputes_older');
  });
const olderStamps = stampPage(false);
const newerStamps = stampPage(true);

/** A page of stamps, newest `created` first; the objects themselves come from the DisputeObjectCache. */
export async function listDisputes(db: Db, caller: Caller, query: ListQuery) {
  const plan = await planPage(db, disputes, ownedBy(disputes, caller), query);
  const rows: DisputeStamp[] = await (plan.backwards ? newerStamps : olderStamps)(db).execute({
    orgId: caller.orgId,
    livemode: caller.livemode,
    cursorCreatedAt: plan.cursor?.createdAt.toISOString() ?? 'infinity',
    cursorId: plan.cursor?.id ?? '',
    states: query.states?.length ? query.states : null,
    account: query.account ?? null,
    limit: plan.limit,
  });
  return plan.finish(rows);
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
    return { status: 200, dispute: updated, template };
  });
}

export async function submitDispute(
  deps: DisputeDeps,
  caller: Caller,
  id: string,
  input: SubmitInput,
): Promise<DisputeOutcome> {
  if (input.queue) return queueDispute(deps, caller, id, input);
  return inTransaction(
    deps,
    caller,
    id,
    'submit',
    input,
    async ({ tx, dispute, template, change, decision }) => {
      if (decision === 'hold') return { status: 202, dispute: await write(tx, dispute, change), template };
      const refusal = submitProblem({ ...dispute, ...change }, template, now(deps));
      if (refusal) return refuseAfterSaving(tx, dispute, change, refusal);
      const saved = await write(tx, dispute, change);
      const prepared = await prepareSubmission(tx, saved, deps.adapters.forDispute(saved).name);
      return { status: 201, dispute: prepared.dispute, template, submissionId: prepared.submissionId };
    },
  );
}

async function queueDispute(deps: DisputeDeps, caller: Caller, id: string, input: SubmitInput | UpdateInput) {
  return inTransaction(
    deps,
    caller,
    id,
    'queue',
    input,
    async ({ tx, dispute, template, change, decision }) => {
      if (decision === 'hold') return { status: 202, dispute: await write(tx, dispute, change), template };
      const refusal = submitProblem({ ...dispute, ...change }, template, now(deps));
      if (refusal) return refuseAfterSaving(tx, dispute, change, refusal);
      const at = submitAt(dispute.dueBy, caller.queueLeadMinutes, now(deps));
      const queued = await write(tx, dispute, { ...change, state: 'queued', submitAt: at });
      await recordDisputeEvent(tx, 'dispute.updated', queued, template);
      return { status: 200, dispute: queued, template };
    },
  );
}

export async function acceptDispute(deps: DisputeDeps, caller: Caller, id: string): Promise<DisputeOutcome> {
  return inTransaction(
    deps,
    caller,
    id,
    'accept',
    {},
    async ({ tx, dispute, template, change, decision }) => {
      if (decision === 'unchanged') return { status: 200, dispute, template };
      // Accepting is bookkeeping here: nothing goes to the processor, and a queued submission is dropped.
      Object.assign(change, { state: 'accepted', submitAt: null });
      const updated = await write(tx, dispute, change);
      await recordDisputeEvent(tx, 'dispute.updated', updated, template);
      return { status: 200, dispute: updated, template };
    },
  );
}

export type QueuedOutcome =
  | { status: 'prepared'; claimed: Claimed }
  | { status: 'skipped' }
  | { status: 'refused'; message: string };

/**
 * Queued disputes whose moment came: prepare each to be submitted with what it holds now, edits
 * included, in one transaction for the batch. Run by the submission worker, which then calls the
 * processor with the attempt it holds. A dispute no longer queued, or queued for a later moment, is left
 * alone (its job was stale). One that can no longer be submitted (a template field went missing, the
 * deadline passed) returns to needs_response with a `dispute.submission_failed` event, and the refusal is
 * the job's failure reason. A failed submission also returns the dispute to needs_response: its moment
 * has passed, and the merchant must act.
 */
export async function prepareQueuedDisputes(
  deps: Pick<DisputeDeps, 'db' | 'adapters' | 'now'> & { leaseMs: number },
  disputeUids: string[],
): Promise<QueuedOutcome[]> {
  const at = now(deps);
  return deps.db.transaction(async (tx) => {
    // Locked in the order the mirror locks a page in (tenant, then id in code-unit order, which the "C"
    // collation is for these ASCII ids), so neither can deadlock the other.
    const rows = await tx
      .select()
      .from(disputes)
      .where(anyOf(disputes.uid, disputeUids, 'uuid'))
      .orderBy(disputes.orgId, disputes.livemode, sql`${disputes.id} collate "C"`)
      .for('update');
    const due = rows.filter(
      (dispute) => dispute.state === 'queued' && dispute.submitAt && dispute.submitAt <= at,
    );
    const templates = await loadTemplates(tx, due);
    const outcomes = new Map<string, QueuedOutcome>();
    const refused: DisputeRow[] = [];
    const ready: DisputeRow[] = [];
    for (const dispute of due) {
      const problem = submitProblem(dispute, templates.get(dispute.uid) ?? null, at);
      if (problem) outcomes.set(dispute.uid, { status: 'refused', message: problem.message });
      (problem ? refused : ready).push(dispute);
    }
    if (refused.length > 0) {
      const returned = await tx
        .update(disputes)
        .set({ state: 'needs_response', submitAt: null, updatedAt: new Date() })
        .where(
          anyOf(
            disputes.uid,
            refused.map((dispute) => dispute.uid),
            'uuid',
          ),
        )
        .returning();
      await recordDisputeEvents(
        tx,
        returned.map((dispute) => ({
          type: 'dispute.submission_failed',
          dispute,
          template: templates.get(dispute.uid) ?? null,
        })),
      );
    }
    const prepared = await prepareSubmissions(
      tx,
      ready.map((dispute) => ({
        dispute,
        adapter: deps.adapters.forDispute(dispute).name,
        returnTo: 'needs_response',
        claimForMs: deps.leaseMs,
      })),
    );
    for (const { dispute, submission } of prepared) {
      const template = templates.get(dispute.uid) ?? null;
      outcomes.set(dispute.uid, { status: 'prepared', claimed: { submission, dispute, template } });
    }
    // Two jobs for one dispute in a batch (its old moment and its new one): the first takes it.
    return disputeUids.map((uid) => {
      const outcome = outcomes.get(uid) ?? { status: 'skipped' };
      outcomes.delete(uid);
      return outcome;
    });
  });
}

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
      template: input.template ?? null,
      fields: checkFieldValues(template, mergeFields({}, input.fields)),
      products: input.products ?? [],
      correspondence: input.correspondence ?? [],
      pastPayments: input.past_payments ?? [],
      referenceUrl: input.reference_url ?? null,
      accountId: input.account_id ?? null,
      createdAt: at,
      updatedAt: at,
    };
    const { fields, products, correspondence, pastPayments } = values;
    checkEvidenceSize({ fields, products, correspondence, pastPayments });
    const [inserted] = await tx.insert(disputes).values(values).onConflictDoNothing().returning();
    if (!inserted) throw new ApiError('invalid_request', `A dispute with id '${input.id}' already exists.`);
    const [arrived = { dispute: inserted, template }] = await applyArrivalRules(
      tx,
      [{ dispute: inserted, template }],
      { force: input.force, now: at, logger: deps.logger },
    );
    const { dispute: created, template: attached } = arrived;
    await recordDisputeEvent(tx, 'dispute.created', created, attached);
    if (!input.submit && !input.queue) return { status: 201, dispute: created, template: attached };

    // Rules act before submit and queue (force bypasses them, and then nothing holds). A dispute a rule
    // held (requires_review; accepted from 2020-02-28) is created as the rule left it, 201 like every
    // create, and the submit or queue is not carried out: the same request on the dispute afterwards
    // would have been held with a 202.
    const action = input.queue ? 'queue' : 'submit';
    const decision = decide(created.state as DisputeState, action, {
      force: input.force,
      version: caller.version,
    });
    if (decision.outcome === 'refuse')
      throw new ApiError(decision.error, refusalMessage(decision.error, created));
    if (decision.outcome !== 'proceed') return { status: 201, dispute: created, template: attached };

    // Unlike a submit of an existing dispute, nothing was saved before: a refusal undoes the create.
    const problem = submitProblem(created, attached, at);
    if (problem) throw problem;
    if (input.queue) {
      const queued = await write(tx, created, {
        state: 'queued',
        submitAt: submitAt(created.dueBy, caller.queueLeadMinutes, at),
      });
      await recordDisputeEvent(tx, 'dispute.updated', queued, attached);
      return { status: 201, dispute: queued, template: attached };
    }
    const prepared = await prepareSubmission(tx, created, deps.adapters.forDispute(created).name);
    return {
      status: 201,
      dispute: prepared.dispute,
      template: attached,
      submissionId: prepared.submissionId,
    };
  });
  return afterCommit(deps, caller, result, null);
}

/**
 * What a step leaves to do once its transaction has committed: run the submission it prepared, or throw
 * a refusal found after the client's parameters were saved (what was saved stays saved when a submit
 * then fails, docs/api.md, "Endpoints").
 */
type StepResult = (DisputeOutcome & { submissionId?: string }) | { refusal: ApiError };

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
  const { result, before } = await deps.db.transaction(async (tx) => {
    const { dispute, template: stored } = await lockDispute(tx, caller, id);
    const decision = decide(dispute.state as DisputeState, action, {
      force: input.force ?? false,
      version: caller.version,
    });
    if (decision.outcome === 'refuse')
      throw new ApiError(decision.error, refusalMessage(decision.error, dispute));
    const { change, template } = await checkEvidence(tx, caller, dispute, stored, input);
    if (action !== 'accept') await requireChargeWhenReadOnly(tx, { ...dispute, ...change });
    if (await acceptedByRule(tx, caller, action, dispute, change, input.force ?? false, now(deps))) {
      // The client's parameters are saved with the acceptance; a submit or queue is held (202) as an
      // accepted dispute's is from 2020-02-28, and a queued dispute loses its pending submission.
      const accepted = await write(tx, dispute, { ...change, state: 'accepted', submitAt: null });
      await recordDisputeEvent(tx, 'dispute.updated', accepted, template);
      const status = action === 'update' ? 200 : 202;
      return { result: { status, dispute: accepted, template } satisfies StepResult, before: dispute };
    }
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
 * request leaves it, unless the client forces; review rules never apply here (services/rules.ts).
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

async function afterCommit(
  deps: DisputeDeps,
  caller: Caller,
  result: StepResult,
  before: DisputeRow | null,
): Promise<DisputeOutcome> {
  if ('refusal' in result) throw result.refusal;
  await reschedule(deps.submitter, before, result.dispute);
  if (result.submissionId) return runPrepared(deps, caller, result.dispute.id, result.submissionId);
  return { status: result.status, dispute: result.dispute, template: result.template };
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

async function requireTemplate(tx: Tx, caller: Caller, id: string | null): Promise<TemplateRow | null> {
  if (id === null) return null;
  const template = await loadTemplate(tx, caller, id);
  if (!template) throw notFound.template(id, true);
  return template;
}

/** Queued disputes go out `queue lead` before the deadline, or at once when that moment has passed. */
function submitAt(dueBy: Date | null, leadMinutes: number, at: Date): Date {
  if (!dueBy) return at;
  const planned = new Date(dueBy.getTime() - leadMinutes * 60_000);
  return planned.getTime() > at.getTime() ? planned : at;
}

function reversalTotal(amount: number | null | undefined, fee: number | null | undefined): number | null {
  return amount === undefined || amount === null ? null : amount + (fee ?? 0);
}

const refusalMessages: Partial<Record<ApiError['type'], string>> = {
  dispute_closed: 'is closed',
  dispute_submitted: 'has already been submitted',
  dispute_uneditable: 'cannot be changed',
};

function refusalMessage(error: ApiError['type'], dispute: DisputeRow): string {
  return `Dispute '${dispute.id}' ${refusalMessages[error] ?? 'cannot take this action'} (state ${dispute.state}).`;
}

/** Writes the change (the database bumps `version`); an empty change writes nothing, so a refusal leaves no trace. */
async function write(tx: Tx, dispute: DisputeRow, change: Change): Promise<DisputeRow> {
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
  return { status: result.status === 'succeeded' ? 201 : 202, dispute, template };
}

function now(deps: Pick<DisputeDeps, 'now'>): Date {
  return deps.now?.() ?? new Date();
}
