import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { AlertOutcome } from '../../domain/alerts.js';
import { listIndex, timestamps } from './columns.js';
import { tenancy } from './tenancy.js';

const at = () => timestamp({ withTimezone: true });

/**
 * One row per pre-dispute warning a processor reported (docs/api.md, "Alerts"): Stripe's early fraud
 * warnings, Adyen's fraud notifications. Keyed like disputes by (organisation, mode, processor's id).
 * The processor owns what it reports; this service owns the outcome, the refund it made and the link
 * to a dispute that arrived later for the same charge.
 */
export const alerts = pgTable(
  'alerts',
  {
    uid: uuid().primaryKey().defaultRandom(),
    ...tenancy(),
    id: text().notNull(),

    // Processor-owned.
    processor: text().notNull(),
    /** The connected account's name, as disputes carry it. */
    account: text().notNull(),
    charge: text(),
    amount: bigint({ mode: 'number' }),
    currency: text(),
    fraudType: text(),
    /** The processor's word that the charge can still be refunded to head off a dispute. */
    actionable: boolean().notNull(),
    /** When the processor raised the warning. */
    reportedAt: at(),

    // Service-owned.
    outcome: text().$type<AlertOutcome>().notNull().default('open'),
    /** The processor's refund id once refunded; the processor's reason when the refund was refused. */
    refund: text(),
    refundFailure: text(),
    /** The lease of the worker calling the processor's refund, as submissions have (claimed_until). */
    refundClaimedUntil: at(),
    /** The dispute that later arrived for the same charge (its id). */
    dispute: text(),
    /** Bumped by a trigger on every update, as for disputes (drizzle/0001_version_triggers.sql). */
    version: integer().notNull().default(1),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('alerts_tenant_id_unique').on(table.orgId, table.livemode, table.id),
    listIndex('alerts_list_idx', table),
    index('alerts_charge_idx').on(table.orgId, table.livemode, table.charge),
  ],
);
