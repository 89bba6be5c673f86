import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { tenancy } from './tenancy.js';

/**
 * One row per `Idempotency-Key` an organisation sent in a mode (docs/api.md, "Idempotent requests"): the
 * request it named, and, once it finished, the answer to replay. Swept 24 hours after `createdAt`.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    ...tenancy(),
    key: text().notNull(),
    /** SHA-256 of the method, path and body: a repeat must name the very same request. */
    requestHash: text().notNull(),
    /** While the first request runs, no other may take the key; past this, a crashed run is given up. */
    lockedUntil: timestamp({ withTimezone: true }),
    /** Set in the same transaction as the request's first write: whether it changed anything. */
    wroteAt: timestamp({ withTimezone: true }),
    /** The kept answer, null while the request runs. */
    status: integer(),
    headers: jsonb().$type<Record<string, string>>(),
    /** The answer's body, sealed (src/secrets.ts): it may carry a secret shown once or personal data. */
    body: text(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.orgId, table.livemode, table.key] }),
    index('idempotency_keys_created_idx').on(table.createdAt),
  ],
);
