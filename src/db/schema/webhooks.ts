import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { listIndex, timestamps } from './columns.js';
import { events } from './events.js';
import { tenancy } from './tenancy.js';

/** Where an organisation wants its events, in which API version, signed with its own secret. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    ...tenancy(),
    url: text().notNull(),
    /** Event types delivered here; `['*']` for all. */
    events: jsonb().$type<string[]>().notNull(),
    apiVersion: text().notNull(),
    /** The signing secret, encrypted with APP_SECRET (src/secrets.ts): shown once, needed to sign. */
    secret: text().notNull(),
    /**
     * The secret a rotation replaced, sealed as `secret` is: deliveries are signed with it too until
     * `previousSecretExpiresAt` (docs/api.md, "Signing"), so receivers can change secrets without a gap.
     */
    previousSecret: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true }),
    enabled: boolean().notNull().default(true),
    disabledReason: text(),
    /** Start of the current run of failed deliveries; an endpoint failing for 3 days is disabled. */
    failingSince: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (table) => [listIndex('webhook_endpoints_list_idx', table)],
);

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;

/** One event for one endpoint. Its id is the webhook's `id` and `webhook-id`, stable across retries. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text().primaryKey(),
    ...tenancy(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text()
      .notNull()
      .references(() => events.id),
    status: text().$type<(typeof deliveryStatuses)[number]>().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    lastStatus: integer(),
    lastError: text(),
    firstAttemptAt: timestamp({ withTimezone: true }),
    nextAttemptAt: timestamp({ withTimezone: true }),
    completedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [
    // One delivery per event and endpoint, so a relay run twice is harmless; a redelivery restarts it.
    uniqueIndex('webhook_deliveries_event_endpoint_unique').on(table.eventId, table.endpointId),
    index('webhook_deliveries_pending_idx').on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
  ],
);

/** The delivery log: every attempt at a delivery, with what the receiver answered. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    deliveryId: text()
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** The receiver's HTTP status; null when it did not answer. */
    status: integer(),
    error: text(),
    durationMs: integer().notNull(),
  },
  (table) => [index('webhook_attempts_delivery_idx').on(table.deliveryId, table.attemptedAt)],
);
