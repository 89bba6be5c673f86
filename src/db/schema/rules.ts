import { integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { RuleConditions } from '../../domain/rules.js';
import { timestamps } from './columns.js';
import { tenancy } from './tenancy.js';

/**
 * An organisation's workflow rules for one mode, in the order they apply (docs/api.md, "States and actions"). Configured
 * with the CLI (`rules set`), which replaces the whole set in one transaction.
 */
export const rules = pgTable(
  'rules',
  {
    uid: uuid().primaryKey().defaultRandom(),
    ...tenancy(),
    /** The rule's `order`: rules apply in ascending order. */
    position: integer().notNull(),
    name: text(),
    /** The rule's `when`, as domain/rules.ts normalises it (lists, lower-case currencies and domains). */
    conditions: jsonb().$type<RuleConditions>().notNull(),
    /** review, accept or template. */
    action: text().notNull(),
    /** The template a `template` rule attaches. */
    template: text(),
    ...timestamps,
  },
  (table) => [uniqueIndex('rules_tenant_position_unique').on(table.orgId, table.livemode, table.position)],
);
