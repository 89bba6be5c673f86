import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organisations } from './organisations.js';

/** API keys are stored as SHA-256 hashes; the key itself is shown once, when it is made. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text().primaryKey(),
    orgId: text()
      .notNull()
      .references(() => organisations.id),
    livemode: boolean().notNull(),
    hash: text().notNull(),
    lastFour: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** When the key stops working: set on rotation, to then or to the end of its grace (may be ahead). */
    revokedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex('api_keys_hash_unique').on(table.hash),
    // One active key per organisation and mode: rotation revokes the old one in the same transaction.
    uniqueIndex('api_keys_active_unique')
      .on(table.orgId, table.livemode)
      .where(sql`${table.revokedAt} is null`),
    index('api_keys_org_idx').on(table.orgId),
  ],
);
