import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes, files, submissions } from '../../db/schema/index.js';
import { formatTimestamp } from '../../domain/disputes.js';
import type { Person } from '../../domain/personal-data.js';
import { namedFiles, redactFilename } from '../../domain/personal-data-files.js';
import type { DisputeRow } from '../disputes/records.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { type Held, mayMention } from './search.js';

/**
 * The files of a personal data request (docs/api.md, "Personal data requests"): those the disputes held
 * about the person name, listed by the export, and those that are the person's alone, which a removal
 * deletes.
 */

/**
 * The tenant's files that the held disputes, or their submissions' snapshots, name: what each is (never
 * its bytes) and the disputes naming it, oldest first.
 */
export async function exportedFiles(tx: Tx, tenant: Tenant, held: Held) {
  const naming = new Map<string, Set<string>>();
  const name = (disputeId: string, ids: readonly string[]) => {
    for (const id of ids) naming.set(id, (naming.get(id) ?? new Set()).add(disputeId));
  };
  for (const dispute of held.disputes) name(dispute.id, namedFiles(dispute));
  for (const submission of held.submissions) name(submission.disputeId, namedFiles(submission.evidence));
  if (naming.size === 0) return [];
  const rows = await tx
    .select()
    .from(files)
    .where(and(ownedBy(files, tenant), anyOf(files.id, [...naming.keys()], 'text')))
    .orderBy(asc(files.createdAt), asc(files.id));
  return rows.map((row) => ({
    id: row.id,
    filename: row.filename,
    type: row.type,
    size: row.size,
    pages: row.pages,
    purpose: row.purpose,
    created: formatTimestamp(row.createdAt),
    disputes: [...(naming.get(row.id) ?? [])],
  }));
}

/**
 * The person's files: those their own disputes (`theirs`) or those disputes' submissions name, but for
 * any that a dispute of someone else in the tenant, or a submission of one, names too (a refund policy
 * shared by many disputes is the merchant's). Call with the disputes locked.
 */
export async function personsFiles(
  tx: Tx,
  tenant: Tenant,
  theirs: readonly DisputeRow[],
  theirSubmissions: Held['submissions'],
): Promise<string[]> {
  const candidates = [
    ...new Set([
      ...theirs.flatMap((dispute) => namedFiles(dispute)),
      ...theirSubmissions.flatMap((submission) => namedFiles(submission.evidence)),
    ]),
  ];
  if (candidates.length === 0) return [];
  const theirUids = theirs.map((dispute) => dispute.uid);
  const shared = await tx.execute<{ id: string }>(sql`
    select c.id from unnest(${sql.param(candidates)}::text[]) as c(id)
    where exists (
      select 1 from ${disputes}
      where ${and(ownedBy(disputes, tenant), sql`not (${anyOf(disputes.uid, theirUids, 'uuid')})`)}
        and (${names(disputes.evidenceFiles, disputes.fields)}
          or ${disputes.productImages} @> jsonb_build_array(jsonb_build_object('file', c.id)))
    ) or exists (
      select 1 from ${submissions}
      where ${and(ownedBy(submissions, tenant), sql`not (${anyOf(submissions.disputeUid, theirUids, 'uuid')})`)}
        and ${names(sql`${submissions.evidence}->'evidenceFiles'`, sql`${submissions.evidence}->'fields'`)}
    )`);
  const kept = new Set(rowsOf<{ id: string }>(shared).map((row) => row.id));
  return candidates.filter((id) => !kept.has(id));
}

/**
 * Renames the tenant's files whose names mention the person (`redactFilename`), whoever's they are: a
 * name is text like any other. Answers how many were renamed.
 */
export async function redactFilenames(tx: Tx, tenant: Tenant, person: Person): Promise<number> {
  const rows = await tx
    .select({ id: files.id, filename: files.filename })
    .from(files)
    .where(and(ownedBy(files, tenant), mayMention(sql`${files.filename}`, person)));
  let renamed = 0;
  for (const row of rows) {
    const filename = redactFilename(row.filename, person.mentions);
    if (filename === row.filename) continue;
    await tx.update(files).set({ filename }).where(eq(files.id, row.id));
    renamed += 1;
  }
  return renamed;
}

/** Whether evidence files and fields (jsonb) name the file `c.id`, as `namedFiles` reads them. */
function names(evidenceFiles: SQL | typeof disputes.evidenceFiles, fields: SQL | typeof disputes.fields) {
  return sql`(coalesce(${evidenceFiles} @> jsonb_build_array(jsonb_build_object('file', c.id)), false)
    or coalesce(jsonb_path_exists(${fields}, '$.* ? (@ == $id)', jsonb_build_object('id', c.id)), false))`;
}
