import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { alias, type PgColumn } from 'drizzle-orm/pg-core';
import type { Tx } from '../../db/client.js';
import { stateIn } from '../../db/schema/columns.js';
import { disputes, organisations, templates } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import { changeEvents } from '../../domain/mirrored-changes.js';
import { closedStates, processorOutcomeStates, serviceLocalStates } from '../../domain/states.js';
import type { TemplateField, TemplateShape } from '../../domain/templates.js';
import { processors } from '../../domain/vocabulary.js';
import type { DisputeAttribute, NormalizedDispute } from '../../processors/types.js';
import type { DisputeRow } from '../disputes/records.js';
import { applyArrivalRules } from '../rules/arrival.js';
import type { DisputeEvent } from '../webhooks/events.js';
import type { MirrorAccount, MirrorOptions } from './write.js';

/**
 * Mirroring's one upsert statement, and the lock of the stored rows it compares against: what a page of
 * news writes into the disputes table, inside the transaction write.ts opens.
 *
 * The rules of mirroring (docs/architecture.md, "Mirroring") live in the one upsert statement, where they hold against concurrent
 * writers (the API, the submission worker) without a read-modify-write race:
 * - only processor-owned columns are written; the client's (template, evidence, reference url,
 *   account_id) and this service's bookkeeping never are;
 * - a dispute in a service-local state stays there unless the processor reports an outcome;
 * - a row is written only when something actually changed, so an identical re-poll bumps no version
 *   and reports nothing;
 * - a row that belongs to another account or to the API (`source: api`) with the same id is left alone.
 */

const excluded = alias(disputes, 'excluded');

/** The processor-owned columns besides id and state, keyed as in NormalizedDispute (checked both ways). */
const processorColumns = {
  reason: disputes.reason,
  kind: disputes.kind,
  chargedAt: disputes.chargedAt,
  disputedAt: disputes.disputedAt,
  dueBy: disputes.dueBy,
  closedAt: disputes.closedAt,
  charge: disputes.charge,
  isChargeRefundable: disputes.isChargeRefundable,
  amount: disputes.amount,
  currency: disputes.currency,
  fee: disputes.fee,
  reversalAmount: disputes.reversalAmount,
  reversalTotal: disputes.reversalTotal,
  reversalCurrency: disputes.reversalCurrency,
  customer: disputes.customer,
  customerName: disputes.customerName,
  customerEmail: disputes.customerEmail,
  customerPurchaseIp: disputes.customerPurchaseIp,
  addressZip: disputes.addressZip,
  addressLine1Check: disputes.addressLine1Check,
  addressZipCheck: disputes.addressZipCheck,
  cvcCheck: disputes.cvcCheck,
  statementDescriptor: disputes.statementDescriptor,
  network: disputes.network,
  networkReasonCode: disputes.networkReasonCode,
  processorStatus: disputes.processorStatus,
  resolution: disputes.resolution,
  compellingEvidenceProcessorStatus: disputes.compellingEvidenceProcessorStatus,
} satisfies Record<DisputeAttribute, PgColumn>;
const processorKeys = Object.keys(processorColumns) as (keyof typeof processorColumns)[];
const list = (columns: SQL[]) => sql.join(columns, sql`, `);

/**
 * How far a dispute has gone (retrieval, chargeback, pre-arbitration): news of a later stage on the same id
 * is the dispute escalating (an Adyen request for information becoming a chargeback), never late news,
 * and may reopen it.
 */
const stageOf = (kind: typeof disputes.kind | typeof excluded.kind) =>
  sql`(case ${kind} when 'retrieval' then 0 when 'chargeback' then 1 when 'pre_arbitration' then 2 else 1 end)`;

/**
 * What a processor's news writes into each column. News that comes unordered (a push, a report import)
 * often carries only part of a dispute (Worldpay's events no deadline or reason, Adyen's later events no
 * dates): what it leaves out keeps what is stored. The charge is kept whenever the news has none: for a
 * read-only account the processor cannot tell it, and the client's (features/disputes/) must stay. A
 * resolution, once set, stays: one the processor told does not un-happen, and `alert_refund` is this service's.
 * What the news tells without the processor's signature (`unsigned`, Adyen's additionalData) only fills
 * what is not known, unless the news is of a later stage: a replayed push cannot change it.
 */
const incoming = (key: (typeof processorKeys)[number]): SQL =>
  key === 'charge'
    ? sql`coalesce(${excluded.charge}, ${disputes.charge})`
    : key === 'resolution'
      ? sql`coalesce(${disputes.resolution}, ${excluded.resolution})`
      : sql`case when ${sql.placeholder('ordered')}::boolean then ${excluded[key]}
        when ${isUnsigned(key)} and ${stageOf(excluded.kind)} <= ${stageOf(disputes.kind)}
          then coalesce(${disputes[key]}, ${excluded[key]})
        else coalesce(${excluded[key]}, ${disputes[key]}) end`;

/** Whether the page's news tells this column without the processor's signature (a JSON array of keys). */
const isUnsigned = (key: (typeof processorKeys)[number]): SQL =>
  sql`(${sql.placeholder('unsigned')}::jsonb ? ${sql.raw(`'${key}'`)})`;

/** The state a dispute ends in: the processor's, unless this service holds it and the news is no outcome. */
const mirroredState = sql`case when ${stateIn(disputes.state, serviceLocalStates)}
  and not (${stateIn(excluded.state, processorOutcomeStates)}) then ${disputes.state} else ${excluded.state} end`;

/**
 * A queued dispute whose deadline the processor moved is planned again from the new one (due_by minus
 * the organisation's queue lead, as queueing does): its old job then finds it not yet due, and the sweep
 * enqueues the new moment.
 */
const queuedMoment = sql`case when ${disputes.state} = 'queued' and ${excluded.dueBy} is not null
  and ${excluded.dueBy} is distinct from ${disputes.dueBy}
  then ${excluded.dueBy} - (select ${organisations.queueLeadMinutes} from ${organisations}
    where ${organisations.id} = ${disputes.orgId}) * interval '1 minute'
  else ${disputes.submitAt} end`;

/**
 * The page travels as one JSON parameter, so the statement is the same text and size for every page (and
 * far cheaper to build and bind than 30 parameters a row). jsonb_to_recordset reads only the columns
 * declared here: whatever else an adapter's objects carry is never written.
 */
const pageColumns = { id: disputes.id, state: disputes.state, ...processorColumns };
const columnName = (key: string) => sql.identifier(toSnakeCase(key));
const pageRecord = sql.raw(
  Object.entries(pageColumns)
    .map(([key, column]) => `"${key}" ${column.getSQLType()}`)
    .join(', '),
);
const insertColumns = sql.join(
  ['orgId', 'livemode', 'source', 'processor', 'account', ...Object.keys(pageColumns)].map(columnName),
  sql`, `,
);
const pageValues = sql.join(
  Object.keys(pageColumns).map((key) => sql`page.${sql.identifier(key)}`),
  sql`, `,
);

const upsertSet = sql.join(
  [
    ...processorKeys.map((key) => sql`${columnName(key)} = ${incoming(key)}`),
    sql`state = ${mirroredState}`,
    sql`submit_at = ${queuedMoment}`,
    sql`updated_at = now()`,
  ],
  sql`, `,
);

const disputeColumns = Object.entries(getTableColumns(disputes));
// xmax is 0 only on a row version this statement inserted (an updated one carries the row lock).
const returning = sql.join(
  [
    ...disputeColumns.map(([key, column]) => sql`${column} as ${sql.identifier(key)}`),
    sql`xmax = 0 as inserted`,
  ],
  sql`, `,
);

/** A returned row as drizzle would have mapped it (dates, bigints), with whether it was inserted. */
function toWrittenRow(raw: Record<string, unknown>): DisputeRow & { inserted: boolean } {
  const row: Record<string, unknown> = { inserted: raw.inserted === true };
  for (const [key, column] of disputeColumns) {
    const value = raw[key];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as DisputeRow & { inserted: boolean };
}

/**
 * Rows of this account whose news differs. News that comes unordered (a push, a report import: no cursor
 * says what is newer) never moves a dispute back: not to an earlier stage, and within its stage not a
 * decided one to open, nor one under review to awaiting a response. A late or redelivered notification,
 * or an older report, is not the processor changing its mind.
 */
const reviewStates = ['under_review', 'warning_under_review'] as const;
const awaitingStates = ['needs_response', 'warning_needs_response'] as const;
/**
 * A later stage told without the processor's signature (`kind` unsigned: Adyen reads some events' stage
 * from additionalData) is taken only from news that opens it, which says when it was disputed.
 */
const opensStage = sql`(not ${isUnsigned('kind')} or ${excluded.disputedAt} is not null)`;
const upsertWhere = sql`${disputes.source} = ${excluded.source}
  and ${disputes.account} is not distinct from ${excluded.account}
  and ((${list(processorKeys.map((key) => sql`${disputes[key]}`))}) is distinct from
       (${list(processorKeys.map(incoming))})
    or ${disputes.state} is distinct from ${mirroredState})
  and (${sql.placeholder('ordered')}::boolean
    or (${stageOf(excluded.kind)} > ${stageOf(disputes.kind)} and ${opensStage})
    or (${stageOf(excluded.kind)} = ${stageOf(disputes.kind)} and not (
      (${stateIn(disputes.state, closedStates)} and not ${stateIn(excluded.state, closedStates)})
      or (${stateIn(disputes.state, reviewStates)} and ${stateIn(excluded.state, awaitingStates)}))))`;

const upsert = statement<{
  orgId: string;
  livemode: boolean;
  source: string;
  processor: string | null;
  account: string;
  page: string;
  ordered: boolean;
  unsigned: string;
}>(sql`
  insert into ${disputes} (${insertColumns})
  select ${sql.placeholder('orgId')}::text, ${sql.placeholder('livemode')}::boolean,
    ${sql.placeholder('source')}::text, ${sql.placeholder('processor')}::text, ${sql.placeholder('account')}::text,
    ${pageValues}
  from jsonb_to_recordset(${sql.placeholder('page')}::jsonb) as page(${pageRecord})
  on conflict (org_id, livemode, id) do update set ${upsertSet}
  where ${upsertWhere}
  returning ${returning}`);

export async function upsertPage(
  tx: Tx,
  account: Omit<MirrorAccount, 'cursor'>,
  page: NormalizedDispute[],
  before: StoredRow[],
  ordered: boolean,
  options: MirrorOptions,
) {
  const previous = new Map(before.map((row) => [row.uid, row]));
  const source = account.processor;
  const returned = await upsert.run(tx, {
    orgId: account.orgId,
    livemode: account.livemode,
    source,
    processor: (processors as readonly string[]).includes(source) ? source : null,
    account: account.id,
    page: JSON.stringify(page),
    ordered,
    unsigned: JSON.stringify(options.unsigned ?? []),
  });
  const written = returned.map(toWrittenRow);

  const arrived = await applyArrivalRules(
    tx,
    written.filter((row) => row.inserted).map((dispute) => ({ dispute, template: null })),
    { logger: options.logger },
  );
  const events: DisputeEvent[] = [];
  for (const { dispute, template } of arrived) {
    for (const type of changeEvents({ inserted: true, previousState: null, state: dispute.state })) {
      events.push({ type, dispute, template });
    }
  }
  let closed = 0;
  for (const row of written) {
    if (row.inserted) continue;
    const was = previous.get(row.uid);
    for (const type of changeEvents({
      inserted: false,
      previousState: was?.state ?? null,
      state: row.state,
    })) {
      if (type === 'dispute.closed') closed += 1;
      events.push({ type, dispute: row, template: was?.template ?? null });
    }
  }

  const foreign = before
    .filter((row) => row.source !== source || row.account !== account.id)
    .map((row) => row.id);
  return {
    created: arrived.length,
    updated: written.length - arrived.length,
    closed,
    unchanged: page.length - written.length - foreign.length,
    foreign,
    events,
  };
}

export interface StoredRow {
  uid: string;
  id: string;
  state: string;
  source: string;
  account: string | null;
  template: TemplateShape | null;
}

/**
 * The page's rows as stored, locked until the page commits: what they were is what the upsert changes,
 * so the diff is exact even when the API wrote to one of them a moment ago. One index probe per id
 * (LATERAL), whatever the planner believes of the tenant's size: right after a large first import its
 * statistics are stale, and a plain `id in (...)` was planned as a scan of the whole tenant per page.
 */
const lockStored = statement<{ orgId: string; livemode: boolean; ids: string }>(sql`
  select d.uid, d.id, d.state, d.source, d.account, t.id as "templateId", t.fields as "templateFields"
  from jsonb_array_elements_text(${sql.placeholder('ids')}::jsonb) as page(id)
  cross join lateral (
    select * from ${disputes}
    where ${disputes.orgId} = ${sql.placeholder('orgId')} and ${disputes.livemode} = ${sql.placeholder('livemode')}
      and ${disputes.id} = page.id
    for update
  ) as d
  left join ${templates} as t on t.org_id = d.org_id and t.livemode = d.livemode and t.id = d.template`);

export async function lockStoredRows(
  tx: Tx,
  account: Omit<MirrorAccount, 'cursor'>,
  page: NormalizedDispute[],
): Promise<StoredRow[]> {
  const rows = await lockStored.run(tx, {
    orgId: account.orgId,
    livemode: account.livemode,
    ids: JSON.stringify(page.map((dispute) => dispute.id)),
  });
  return rows.map((row) => ({
    uid: row.uid,
    id: row.id,
    state: row.state,
    source: row.source,
    account: row.account,
    template:
      row.templateId === null
        ? null
        : {
            id: row.templateId,
            fields: templates.fields.mapFromDriverValue(row.templateFields) as TemplateField[],
          },
  }));
}
