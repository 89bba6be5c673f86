import { type SQL, sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { CorrespondenceItem, FieldValue, PastPayment, Product } from '../../domain/evidence.js';
import type { EvidenceFileEntry, ProductImage } from '../../domain/evidence-files.js';
import { dueSoonStates, overdueStates } from '../../domain/states.js';
import { listIndex, stateIn, timestamps } from './columns.js';
import { tenancy } from './tenancy.js';

const at = () => timestamp({ withTimezone: true });
const money = () => bigint({ mode: 'number' });

/**
 * Whether a template or any evidence is attached to a dispute: the `has_evidence` filter (docs/api.md,
 * "Disputes"). The one expression for its index and for the queries: the planner uses an expression index
 * only for the same expression.
 */
export function evidenceAttached(table: {
  template: AnyPgColumn;
  fields: AnyPgColumn;
  products: AnyPgColumn;
  correspondence: AnyPgColumn;
  pastPayments: AnyPgColumn;
  evidenceFiles: AnyPgColumn;
}): SQL {
  return sql`(${table.template} is not null or ${table.fields} <> '{}'::jsonb or ${table.products} <> '[]'::jsonb or ${table.correspondence} <> '[]'::jsonb or ${table.pastPayments} <> '[]'::jsonb or ${table.evidenceFiles} <> '[]'::jsonb)`;
}

/** `(org_id, livemode, filtered, created_at, id, ...trailing)`: a filter's disputes in the list's order. */
function filterIndex(
  name: string,
  table: { orgId: AnyPgColumn; livemode: AnyPgColumn; createdAt: AnyPgColumn; id: AnyPgColumn },
  filtered: AnyPgColumn | SQL,
  trailing: AnyPgColumn[] = [],
) {
  return index(name).on(table.orgId, table.livemode, filtered, table.createdAt, table.id, ...trailing);
}

/**
 * One row per dispute, keyed by (organisation, mode, processor's id). Columns the client owns (template,
 * evidence, reference url, account_id) are grouped apart from those the processor owns: mirroring never
 * writes the client's.
 */
export const disputes = pgTable(
  'disputes',
  {
    uid: uuid().primaryKey().defaultRandom(),
    ...tenancy(),
    id: text().notNull(),

    // Processor-owned.
    state: text().notNull(),
    reason: text().notNull(),
    kind: text().notNull().default('chargeback'),
    source: text().notNull(),
    processor: text(),
    account: text(),
    chargedAt: at(),
    disputedAt: at(),
    dueBy: at(),
    closedAt: at(),
    charge: text(),
    isChargeRefundable: boolean(),
    amount: money(),
    currency: text(),
    fee: money(),
    reversalAmount: money(),
    reversalTotal: money(),
    reversalCurrency: text(),
    customer: text(),
    customerName: text(),
    customerEmail: text(),
    customerPurchaseIp: text(),
    addressZip: text(),
    addressLine1Check: text(),
    addressZipCheck: text(),
    cvcCheck: text(),
    statementDescriptor: text(),
    /** The card network (domain/networks.ts), its own reason code, and the processor's state word, as reported. */
    network: text(),
    networkReasonCode: text(),
    processorStatus: text(),
    /** The pre-dispute program that resolved the dispute as the processor reports it (`rdr`), or this service's alert refund. */
    resolution: text(),
    /** The processor's own Visa CE 3.0 verdict (Stripe's enhanced_eligibility), beside this service's. */
    compellingEvidenceProcessorStatus: text(),

    // Client-owned.
    template: text(),
    fields: jsonb().$type<Record<string, FieldValue>>().notNull().default({}),
    products: jsonb().$type<Product[]>().notNull().default([]),
    correspondence: jsonb().$type<CorrespondenceItem[]>().notNull().default([]),
    pastPayments: jsonb().$type<PastPayment[]>().notNull().default([]),
    evidenceFiles: jsonb().$type<EvidenceFileEntry[]>().notNull().default([]),
    /** Each product `image` URL as fetched when the evidence was saved (domain/evidence-files.ts). */
    productImages: jsonb().$type<ProductImage[]>().notNull().default([]),
    referenceUrl: text(),
    accountId: text(),

    // Service-owned.
    /** The alert (its id) raised earlier for the same charge (docs/api.md, "Alerts"). */
    alert: text(),
    submittedAt: at(),
    submittedCount: integer().notNull().default(0),
    /** When a queued dispute is to be submitted: due_by minus the organisation's queue lead. */
    submitAt: at(),
    /** When the deadline sweep sent `dispute.due_soon` / `dispute.overdue`: each is sent once. */
    dueSoonNotifiedAt: at(),
    overdueNotifiedAt: at(),
    /**
     * Bumped by a trigger on every update (drizzle/0001_version_triggers.sql): workers use it for optimistic
     * checks, and cached dispute objects are keyed by it.
     */
    version: integer().notNull().default(1),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('disputes_tenant_id_unique').on(table.orgId, table.livemode, table.id),
    listIndex('disputes_list_idx', table),
    // The list's filters (features/disputes/filters.ts), why each in docs/architecture.md, "Dispute search".
    // Ascending, as listIndex says. `(…, column, created_at, id)` gives a filter's disputes
    // newest first straight from the index, which also answers the page's (created, id) cut alone; a
    // trailing column is checked in the index too (state with due_by, due_by with state: the pair of both).
    ...(['state', 'account', 'reason', 'processor', 'currency'] as const).map((column) =>
      filterIndex(`disputes_${column}_idx`, table, table[column], column === 'state' ? [table.dueBy] : []),
    ),
    filterIndex('disputes_evidence_idx', table, evidenceAttached(table)),
    filterIndex('disputes_due_by_idx', table, table.dueBy, [table.state]),
    filterIndex('disputes_disputed_at_idx', table, table.disputedAt),
    // Lookups, few disputes a value (charge, customer) or few values (kind, network; deduplicated to a few
    // bytes a row): the matches are sorted, or the list index read with the filter where a value is common.
    index('disputes_kind_idx').on(table.orgId, table.livemode, table.kind),
    index('disputes_network_idx').on(table.orgId, table.livemode, table.network),
    index('disputes_charge_idx').on(table.orgId, table.livemode, table.charge),
    index('disputes_customer_idx').on(table.orgId, table.livemode, table.customer),
    index('disputes_customer_email_idx').on(table.orgId, table.livemode, sql`lower(${table.customerEmail})`),
    index('disputes_amount_idx').on(table.orgId, table.livemode, table.amount),
    // The deadline sweep reads only what is due: each partial index holds just the rows it may act on.
    index('disputes_queued_idx').on(table.submitAt).where(sql`${table.state} = 'queued'`),
    index('disputes_due_soon_idx')
      .on(table.dueBy)
      .where(sql`${table.dueSoonNotifiedAt} is null and ${stateIn(table.state, dueSoonStates)}`),
    index('disputes_overdue_idx')
      .on(table.dueBy)
      .where(sql`${table.overdueNotifiedAt} is null and ${stateIn(table.state, overdueStates)}`),
  ],
);
