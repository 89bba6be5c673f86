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
  /** Whether a Visa compliance dispute may be answered with its fee acknowledged (Stripe's visa_compliance). */
  visaComplianceFee: text().$type<'accept' | 'refuse'>().notNull().default('refuse'),
  /**
   * Per mode, the largest charge in each currency (minor units, currency lower-case) that an actionable
   * alert refunds on its own (docs/api.md, "Alerts"). No entry: nothing is refunded on its own.
   */
  alertRefundUpTo: jsonb()
    .$type<{ test?: Record<string, number>; live?: Record<string, number> }>()
    .notNull()
    .default({}),
  ...timestamps,
});
