import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';

export const organisations = pgTable('organisations', {
  id: text().primaryKey(),
  name: text().notNull(),
  /** The API version requests use when they send no version header. */
  apiVersion: text().notNull(),
  /** How long before `due_by` a queued dispute is submitted. */
  queueLeadMinutes: integer().notNull().default(1440),
  ...timestamps,
});
