import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { disputes, templates } from '../../db/schema/index.js';
import { builtOnce } from '../../db/statements.js';
import { notFound } from '../../domain/errors.js';
import { ownedBy, type Tenant } from '../tenancy.js';

export type DisputeRow = typeof disputes.$inferSelect;
export type TemplateRow = typeof templates.$inferSelect;

/** Joins a dispute to the template it names, within the dispute's own tenant. */
export const templateOfDispute = and(
  eq(templates.orgId, disputes.orgId),
  eq(templates.livemode, disputes.livemode),
  eq(templates.id, disputes.template),
);

const readDispute = preparedFor((db) =>
  db
    .select({ dispute: disputes, template: templates })
    .from(disputes)
    .leftJoin(templates, templateOfDispute)
    .where(
      and(
        eq(disputes.orgId, sql.placeholder('orgId')),
        eq(disputes.livemode, sql.placeholder('livemode')),
        eq(disputes.id, sql.placeholder('id')),
      ),
    )
    .prepare('read_dispute'),
);

/** The dispute with its template (null when it names none or the template is gone), in one query. */
export async function findDispute(
  db: Db,
  tenant: Tenant,
  id: string,
): Promise<{ dispute: DisputeRow; template: TemplateRow | null }> {
  const [row] = await readDispute(db).execute({ orgId: tenant.orgId, livemode: tenant.livemode, id });
  if (!row) throw notFound.dispute(id);
  return row;
}

/** The same, inside a transaction, with the dispute row locked until the transaction ends. */
export async function lockDispute(
  tx: Tx,
  tenant: Tenant,
  id: string,
): Promise<{ dispute: DisputeRow; template: TemplateRow | null }> {
  const [row] = await tx
    .select({ dispute: disputes, template: templates })
    .from(disputes)
    .leftJoin(templates, templateOfDispute)
    .where(and(ownedBy(disputes, tenant), eq(disputes.id, id)))
    .for('update', { of: disputes });
  if (!row) throw notFound.dispute(id);
  return row;
}

/** Disputes by internal uid, with their templates, in one query. */
export async function loadDisputes(
  db: Db,
  tenant: Tenant,
  uids: string[],
): Promise<{ dispute: DisputeRow; template: TemplateRow | null }[]> {
  if (uids.length === 0) return [];
  return db
    .select({ dispute: disputes, template: templates })
    .from(disputes)
    .leftJoin(templates, templateOfDispute)
    .where(and(ownedBy(disputes, tenant), inArray(disputes.uid, uids)));
}

/**
 * The templates of the keys given (tenant and id), of any number of tenants, in one query. The keys go as
 * three array parameters, so the statement's text is the same for any number of them.
 */
export async function findTemplates(
  db: Db | Tx,
  keys: readonly (Tenant & { id: string })[],
): Promise<TemplateRow[]> {
  if (keys.length === 0) return [];
  return selectTemplates(db, {
    orgIds: keys.map((key) => key.orgId),
    livemodes: keys.map((key) => String(key.livemode)),
    ids: keys.map((key) => key.id),
  });
}

/** Built once and named (db/statements.ts): the submission path and the API read templates so. */
const selectTemplates = builtOnce((db) =>
  db
    .select()
    .from(templates)
    .where(
      sql`(${templates.orgId}, ${templates.livemode}, ${templates.id}) in (select * from unnest(
        ${sql.placeholder('orgIds')}::text[],
        ${sql.placeholder('livemodes')}::text[]::boolean[],
        ${sql.placeholder('ids')}::text[]))`,
    )
    .prepare('find_templates'),
);

/** The templates a set of disputes name, by dispute uid, in one query. */
export async function loadTemplates(
  db: Db | Tx,
  named: readonly (Tenant & { uid: string; template: string | null })[],
): Promise<Map<string, TemplateRow>> {
  const naming = named.filter((dispute) => dispute.template !== null);
  if (naming.length === 0) return new Map();
  const keys = [...new Map(naming.map((d) => [`${d.orgId}/${d.livemode}/${d.template}`, d])).values()];
  const rows = await findTemplates(
    db,
    keys.map((d) => ({ orgId: d.orgId, livemode: d.livemode, id: d.template ?? '' })),
  );
  const byKey = new Map(rows.map((row) => [`${row.orgId}/${row.livemode}/${row.id}`, row]));
  const byDispute = new Map<string, TemplateRow>();
  for (const d of naming) {
    const row = byKey.get(`${d.orgId}/${d.livemode}/${d.template}`);
    if (row) byDispute.set(d.uid, row);
  }
  return byDispute;
}

export async function loadTemplate(
  db: Db | Tx,
  tenant: Tenant,
  id: string | null,
): Promise<TemplateRow | null> {
  if (!id) return null;
  const [row] = await db
    .select()
    .from(templates)
    .where(and(ownedBy(templates, tenant), eq(templates.id, id)));
  return row ?? null;
}
