import { and, eq } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../db/client.js';
import { disputes, templates } from '../db/schema/index.js';
import { notFound } from '../domain/errors.js';

export type DisputeRow = typeof disputes.$inferSelect;
export type TemplateRow = typeof templates.$inferSelect;

/** A tenant: every read and write of client data is scoped to one organisation in one mode. */
export interface Tenant {
  orgId: string;
  livemode: boolean;
}

export const ownedBy = <T extends { orgId: AnyPgColumn; livemode: AnyPgColumn }>(table: T, tenant: Tenant) =>
  and(eq(table.orgId, tenant.orgId), eq(table.livemode, tenant.livemode));

/** Joins a dispute to the template it names, within the dispute's own tenant. */
export const templateOfDispute = and(
  eq(templates.orgId, disputes.orgId),
  eq(templates.livemode, disputes.livemode),
  eq(templates.id, disputes.template),
);

/** The dispute with its template (null when it names none or the template is gone), in one query. */
export async function findDispute(
  db: Db | Tx,
  tenant: Tenant,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<{ dispute: DisputeRow; template: TemplateRow | null }> {
  const query = db
    .select({ dispute: disputes, template: templates })
    .from(disputes)
    .leftJoin(templates, templateOfDispute)
    .where(and(ownedBy(disputes, tenant), eq(disputes.id, id)));
  const [row] = options.forUpdate ? await query.for('update', { of: disputes }) : await query;
  if (!row) throw notFound.dispute(id);
  return row;
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
