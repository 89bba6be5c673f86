import { integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { TemplateField } from '../../domain/templates.js';
import { listIndex, timestamps } from './columns.js';
import { tenancy } from './tenancy.js';

export const templates = pgTable(
  'templates',
  {
    uid: uuid().primaryKey().defaultRandom(),
    ...tenancy(),
    id: text().notNull(),
    name: text(),
    description: text(),
    fields: jsonb().$type<TemplateField[]>().notNull().default([]),
    reasons: jsonb().$type<string[] | null>(),
    body: text(),
    /** Bumped by a trigger on every update: cached dispute objects derived from the template are keyed by it. */
    version: integer().notNull().default(1),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('templates_tenant_id_unique').on(table.orgId, table.livemode, table.id),
    listIndex('templates_list_idx', table),
  ],
);
