import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { type PageQuery, planPage } from '../../db/paging.js';
import { templates } from '../../db/schema/index.js';
import { type DocumentLimits, documentSizeProblem, measureTemplate } from '../../domain/document-size.js';
import { ApiError, notFound } from '../../domain/errors.js';
import type { CreateTemplateInput, TemplateInput } from '../../domain/templates.js';
import type { TemplateRow } from '../disputes/records.js';
import { ownedBy, type Tenant } from '../tenancy.js';

/** Templates CRUD (docs/api.md, "Templates and response documents"): each template belongs to one organisation and mode. */

export async function createTemplate(
  db: Db | Tx,
  tenant: Tenant,
  input: CreateTemplateInput,
  limits: DocumentLimits,
): Promise<TemplateRow> {
  checkTemplateSize({ id: input.id, name: input.name ?? null, body: input.body ?? null }, limits);
  const [created] = await db
    .insert(templates)
    .values({ orgId: tenant.orgId, livemode: tenant.livemode, id: input.id, ...columns(input) })
    .onConflictDoNothing()
    .returning();
  if (!created) throw new ApiError('invalid_request', `A template with id '${input.id}' already exists.`);
  return created;
}

export async function retrieveTemplate(db: Db, tenant: Tenant, id: string): Promise<TemplateRow> {
  const [row] = await db
    .select()
    .from(templates)
    .where(and(ownedBy(templates, tenant), eq(templates.id, id)));
  if (!row) throw notFound.template(id, false);
  return row;
}

export async function listTemplates(db: Db, tenant: Tenant, query: PageQuery) {
  const scope = ownedBy(templates, tenant);
  const page = await planPage(db, templates, scope, query);
  const rows = await db
    .select()
    .from(templates)
    .where(and(scope, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  return page.finish(rows);
}

export async function updateTemplate(
  db: Db | Tx,
  tenant: Tenant,
  id: string,
  input: TemplateInput,
  limits: DocumentLimits,
): Promise<TemplateRow> {
  // The template as the update leaves it is measured; a refusal rolls the update back.
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(templates)
      .set({ ...columns(input), updatedAt: new Date() })
      .where(and(ownedBy(templates, tenant), eq(templates.id, id)))
      .returning();
    if (!updated) throw notFound.template(id, false);
    checkTemplateSize(updated, limits);
    return updated;
  });
}

/**
 * A template's own text, every placeholder empty, is part of every document it makes: over the limits
 * alone, it is refused (docs/api.md, "The size of the response document"). The disputes that name it
 * are not measured here (a template may serve any number of them): each is checked when it is submitted
 * or queued, and again when its queued moment comes.
 */
function checkTemplateSize(
  template: { id: string; name: string | null; body: string | null },
  limits: DocumentLimits,
): void {
  const size = measureTemplate({ ...template, fields: [] });
  const subject = `Template '${template.id}' alone makes a response document of`;
  const problem = documentSizeProblem(size, limits, subject);
  if (problem) throw problem;
}

export interface ImportedTemplate {
  template: TemplateRow;
  action: 'created' | 'updated';
}

/**
 * Creates or updates each template (by id, in the tenant), with the create and update above, in one
 * transaction: a problem with any entry changes nothing, and its message names the entry's index. An
 * update changes only the attributes the entry holds, as PUT does. The inputs are parsed already (the
 * API's schemas, `createTemplateInput`), so what the API refuses is refused here the same way.
 */
export async function importTemplates(
  db: Db,
  tenant: Tenant,
  inputs: readonly CreateTemplateInput[],
  limits: DocumentLimits,
): Promise<ImportedTemplate[]> {
  const firstIndex = new Map<string, number>();
  inputs.forEach((input, index) => {
    const earlier = firstIndex.get(input.id);
    if (earlier !== undefined) {
      throw new Error(`template at index ${index}: id '${input.id}' repeats the one at index ${earlier}`);
    }
    firstIndex.set(input.id, index);
  });
  if (inputs.length === 0) return [];
  return db.transaction(async (tx) => {
    const existing = await tx
      .select({ id: templates.id })
      .from(templates)
      .where(
        and(
          ownedBy(templates, tenant),
          inArray(
            templates.id,
            inputs.map((input) => input.id),
          ),
        ),
      )
      .for('update');
    const known = new Set(existing.map((row) => row.id));
    const imported: ImportedTemplate[] = [];
    for (const [index, input] of inputs.entries()) {
      try {
        imported.push(
          known.has(input.id)
            ? { template: await updateTemplate(tx, tenant, input.id, input, limits), action: 'updated' }
            : { template: await createTemplate(tx, tenant, input, limits), action: 'created' },
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`template at index ${index} ('${input.id}'): ${reason}`, { cause: error });
      }
    }
    return imported;
  });
}

/** Disputes that name a deleted template keep the name; submitting them answers template_not_found. */
export async function deleteTemplate(db: Db, tenant: Tenant, id: string): Promise<TemplateRow> {
  const [deleted] = await db
    .delete(templates)
    .where(and(ownedBy(templates, tenant), eq(templates.id, id)))
    .returning();
  if (!deleted) throw notFound.template(id, false);
  return deleted;
}

/**
 * The ids among `ids` that name no template of the tenant (nulls, which name none, are passed over), in
 * one query. Rules and default templates name templates by id, and are refused while one does not exist.
 */
export async function findMissingTemplates(
  tx: Db | Tx,
  tenant: Tenant,
  ids: readonly (string | null)[],
): Promise<Set<string>> {
  const named = [...new Set(ids.filter((id) => id !== null))];
  if (named.length === 0) return new Set();
  const rows = await tx
    .select({ id: templates.id })
    .from(templates)
    .where(and(ownedBy(templates, tenant), inArray(templates.id, named)));
  const existing = new Set(rows.map((row) => row.id));
  return new Set(named.filter((id) => !existing.has(id)));
}

/** Only the attributes the client sent: an update leaves the others as they are. */
function columns(input: TemplateInput) {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.fields !== undefined && { fields: input.fields }),
    ...(input.reasons !== undefined && { reasons: input.reasons }),
    ...(input.body !== undefined && { body: input.body }),
  };
}
