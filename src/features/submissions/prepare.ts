import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes, submissions } from '../../db/schema/index.js';
import { builtOnce, statement } from '../../db/statements.js';
import type { EvidencePackage } from '../../domain/evidence.js';
import { newId } from '../../ids.js';
import type { DisputeRow } from '../disputes/records.js';
import type { SubmissionRow } from './records.js';

function evidenceOf(dispute: DisputeRow): EvidencePackage {
  return {
    template: dispute.template,
    fields: dispute.fields,
    products: dispute.products,
    correspondence: dispute.correspondence,
    pastPayments: dispute.pastPayments,
    referenceUrl: dispute.referenceUrl,
    evidenceFiles: dispute.evidenceFiles,
  };
}

/**
 * Records a submission attempt and moves the dispute to compiling_evidence, inside the caller's
 * transaction. The row exists before the processor is called; its id is the idempotency key. `returnTo`
 * is the state a failure puts the dispute back in: where it was, unless that state would resubmit it.
 */
export async function prepareSubmissions(
  tx: Tx,
  items: readonly { dispute: DisputeRow; adapter: string; returnTo?: string; claimForMs?: number }[],
): Promise<{ submissionId: string; dispute: DisputeRow; submission: SubmissionRow }[]> {
  if (items.length === 0) return [];
  const rows: SubmissionRow[] = items.map(({ dispute, adapter, returnTo, claimForMs }) => ({
    id: newId('submission'),
    orgId: dispute.orgId,
    livemode: dispute.livemode,
    disputeUid: dispute.uid,
    status: 'pending',
    adapter,
    previousState: returnTo ?? dispute.state,
    evidence: evidenceOf(dispute),
    // Decided when the evidence goes out, after past payments may have joined it (runner.ts).
    compellingEvidence: null,
    processorReference: null,
    failure: null,
    // A runner that goes on to call the processor itself holds the attempt from the start.
    claimedUntil: claimForMs === undefined ? null : new Date(Date.now() + claimForMs),
    failedAtJobAttempt: null,
    retriedAs: null,
    documentId: null,
    documentSha256: null,
    createdAt: new Date(),
    completedAt: null,
  }));
  // Sent together (db/statements.ts: pipelined on the transaction's connection); Postgres runs them in order.
  const [, compiling] = await Promise.all([
    insertSubmissions.run(tx, {
      rows: JSON.stringify(
        rows.map((row, index) => ({ ...row, claimForMs: items[index]?.claimForMs ?? null })),
      ),
    }),
    compilingDisputes(tx, { uids: items.map((item) => item.dispute.uid), now: new Date().toISOString() }),
  ]);
  const byUid = new Map(compiling.map((dispute) => [dispute.uid, dispute]));
  return rows.map((submission) => {
    const dispute = byUid.get(submission.disputeUid);
    if (!dispute) throw new Error(`dispute ${submission.disputeUid} vanished inside its transaction`);
    return { submissionId: submission.id, dispute, submission };
  });
}

/** One statement of constant text for any number of attempts: the rows travel as one JSON parameter. */
const insertSubmissions = statement<{ rows: string }>(sql`
  insert into ${submissions} (id, org_id, livemode, dispute_uid, adapter, previous_state, evidence, claimed_until)
  select id, "orgId", livemode, "disputeUid", adapter, "previousState", evidence,
    now() + "claimForMs" * interval '1 millisecond'
  from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as attempt(id text, "orgId" text,
    livemode boolean, "disputeUid" uuid, adapter text, "previousState" text, evidence jsonb, "claimForMs" integer)`);

/** Built once (db/statements.ts): the disputes' fifty columns are not built again for every batch. */
const compilingDisputes = builtOnce((db) =>
  db
    .update(disputes)
    .set({ state: 'compiling_evidence', updatedAt: sql`${sql.placeholder('now')}::timestamptz` })
    .where(anyOf(disputes.uid, sql.placeholder('uids'), 'uuid'))
    .returning()
    .prepare('compiling_disputes'),
);

export async function prepareSubmission(
  tx: Tx,
  dispute: DisputeRow,
  adapter: string,
): Promise<{ submissionId: string; dispute: DisputeRow }> {
  const [prepared] = await prepareSubmissions(tx, [{ dispute, adapter }]);
  if (!prepared) throw new Error('no submission was prepared');
  return prepared;
}
