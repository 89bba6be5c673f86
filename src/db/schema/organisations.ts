import { integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';

export const organisations = pgTable('organisations', {
  id: text().primaryKey(),
  name: text().notNull(),
  /** The API version requests use when they send no version header. */
  apiVersion: text().notNull(),
  /** How long before `due_by` a queued dispute is submitted. */
  queueLeadMinutes: integer().notNull().default(1440),
  /** How long before `due_by` the `dispute.due_soon` event is sent; null: the DUE_SOON_HOURS setting. */
  dueSoonHours: integer(),
  /** The template attached to a new dispute of a reason when no rule attached one, per mode. */
  defaultTemplates: jsonb()
    .$type<{ test?: Record<string, string>; live?: Record<string, string> }>()
    .notNull()
    .default({}),
  /**
   * Sites other than the service's own whose pages may send requests with the organisation's key from a
   * browser (an `Origin` header): origins, as `https://shop.example.com`.
   */
  allowedOrigins: text().array().notNull().default([]),
  ...timestamps,
});
