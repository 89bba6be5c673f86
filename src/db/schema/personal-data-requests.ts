import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tenancy } from './tenancy.js';

/**
 * Every personal-data request (retrieve or remove), recorded. The person is held only as keyed hashes
 * of the normalised email and name, and the export and notification address only sealed with APP_SECRET,
 * so a request leaves no readable trace of the person it was about.
 */
export const personalDataRequests = pgTable(
  'personal_data_requests',
  {
    id: text().primaryKey(),
    ...tenancy(),
    kind: text().$type<'retrieve' | 'remove'>().notNull(),
    emailHash: text().notNull(),
    nameHash: text().notNull(),
    /** Sealed (src/secrets.ts). */
    notificationEmail: text(),
    /**
     * A removal waiting to run: the email and name as sent, sealed, for the job that carries it out once
     * no submission of the person's disputes is in flight. Cleared when it has run.
     */
    subject: text(),
    /** The export of a retrieve request, sealed JSON; deleted when the person's data is removed. */
    export: text(),
    /** What was found or changed, as counts per table. */
    summary: jsonb().$type<Record<string, number>>(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** Null while a removal waits for its job. */
    completedAt: timestamp({ withTimezone: true }),
    /** Why a removal cannot run at all (its subject cannot be opened): left to on-call, not retried. */
    failure: text(),
  },
  (table) => [
    index('personal_data_requests_person_idx').on(table.orgId, table.livemode, table.emailHash),
    // Removals waiting for their job: what the deadline sweep looks for, few at any time.
    index('personal_data_requests_waiting_idx')
      .on(table.createdAt)
      .where(sql`${table.completedAt} is null and ${table.failure} is null`),
  ],
);
