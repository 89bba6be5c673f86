import { integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { tenancy } from './tenancy.js';

export const accountAccess = ['full', 'read_only'] as const;
export const accountStatuses = ['active', 'disabled'] as const;

/**
 * A processor account an organisation connected, per mode. Each active one has a mirror job scheduler
 * polling it every `pollIntervalSeconds`; `cursor` is where the last committed page of its disputes ended.
 */
export const connectedAccounts = pgTable(
  'connected_accounts',
  {
    uid: uuid().primaryKey().defaultRandom(),
    ...tenancy(),
    /** The name disputes carry as `account` (`default` for an organisation's first one). */
    id: text().notNull(),
    processor: text().notNull(),
    access: text().$type<(typeof accountAccess)[number]>().notNull().default('full'),
    /** Processor credentials, encrypted with APP_SECRET (src/secrets.ts); null for the mock processor. */
    credentials: text(),
    /** The processor's host for this account instead of its default by mode (a sandbox, a fake in tests). */
    baseUrl: text(),
    pollIntervalSeconds: integer().notNull().default(300),
    cursor: text(),
    /** Where the last committed page of its alerts ended (docs/api.md, "Alerts"). */
    alertCursor: text(),
    status: text().$type<(typeof accountStatuses)[number]>().notNull().default('active'),
    lastPolledAt: timestamp({ withTimezone: true }),
    /** What the last poll failed with, for operators; cleared by the next successful poll. */
    lastError: text(),
    ...timestamps,
  },
  (table) => [uniqueIndex('connected_accounts_tenant_id_unique').on(table.orgId, table.livemode, table.id)],
);
