import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { listIndex } from './columns.js';
import { tenancy } from './tenancy.js';

/**
 * The outbox: every event is written in the transaction of the change it reports. `relayedAt` stays null
 * until the relay has turned it into webhook deliveries.
 */
export const events = pgTable(
  'events',
  {
    id: text().primaryKey(),
    ...tenancy(),
    type: text().notNull(),
    disputeUid: uuid(),
    /** The dispute as it was when the event happened, in the service's own (latest) shape. */
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    relayedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    listIndex('events_list_idx', table),
    index('events_unrelayed_idx').on(table.createdAt).where(sql`${table.relayedAt} is null`),
  ],
);
