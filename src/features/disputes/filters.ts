import { type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { evidenceAttached } from '../../db/schema/disputes.js';
import { disputes } from '../../db/schema/index.js';
import type { Network } from '../../domain/networks.js';
import type { DisputeState } from '../../domain/states.js';
import { latestTimestamp } from '../../domain/values.js';
import type { Kind, Processor, Reason } from '../../domain/vocabulary.js';

/**
 * The filters of the dispute list (docs/api.md, "Disputes") as conditions on the disputes table. Each
 * filter is a plain comparison of an indexed column or expression with parameters, so that its index
 * (drizzle/0009_dispute_search_indexes.sql) serves it: docs/architecture.md, "Dispute search".
 */

/** A range: any of the four bounds; together they must all hold (gte above lte is simply empty). */
export interface Bounds<T> {
  gte?: T;
  gt?: T;
  lte?: T;
  lt?: T;
}

/** Every list is "any of" its values; every filter given must hold. Absent or empty: no condition. */
export interface DisputeFilters {
  states?: readonly DisputeState[];
  accounts?: readonly string[];
  reasons?: readonly Reason[];
  processors?: readonly Processor[];
  kinds?: readonly Kind[];
  networks?: readonly Network[];
  charges?: readonly string[];
  customers?: readonly string[];
  /** Compared without regard to case. */
  customerEmails?: readonly string[];
  /** Lower case, as stored. */
  currencies?: readonly string[];
  amount?: Bounds<number>;
  created?: Bounds<Date>;
  dueBy?: Bounds<Date>;
  disputedAt?: Bounds<Date>;
  hasEvidence?: boolean;
}

/** Whether any filter is set: an unfiltered page has a prepared statement of its own (list.ts). */
export function filtering(filters: DisputeFilters): boolean {
  return Object.values(filters).some(
    (value) => value !== undefined && (!Array.isArray(value) || value.length > 0),
  );
}

/**
 * The conditions of `filters`, to be and-ed with the tenant's. Values travel as parameters (merchant text
 * never enters the SQL); one value is a plain `=`, several an IN list, both of which an index on the column
 * serves.
 */
export function filterConditions(filters: DisputeFilters): SQL[] {
  const table = disputes;
  return [
    anyOf(table.state, filters.states),
    anyOf(table.account, filters.accounts),
    anyOf(table.reason, filters.reasons),
    anyOf(table.processor, filters.processors),
    anyOf(table.kind, filters.kinds),
    anyOf(table.network, filters.networks),
    anyOf(table.charge, filters.charges),
    anyOf(table.customer, filters.customers),
    anyOf(
      sql`lower(${table.customerEmail})`,
      filters.customerEmails?.map((email) => sql`lower(${email})`),
    ),
    anyOf(table.currency, filters.currencies),
    ...amountRange(filters.amount),
    ...timeRange(table.createdAt, filters.created),
    ...timeRange(table.dueBy, filters.dueBy),
    ...timeRange(table.disputedAt, filters.disputedAt),
    filters.hasEvidence === undefined
      ? undefined
      : filters.hasEvidence
        ? evidenceAttached(table)
        : sql`not ${evidenceAttached(table)}`,
  ].filter((condition) => condition !== undefined);
}

function anyOf(column: AnyPgColumn | SQL, values: readonly unknown[] | undefined): SQL | undefined {
  if (!values?.length) return undefined;
  if (values.length === 1) return sql`${column} = ${values[0]}`;
  return sql`${column} in (${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )})`;
}

/** `column <op> value` for each bound given; the operators are this file's constants. */
function compared(column: AnyPgColumn, bounds: readonly (readonly [string, SQL | undefined])[]): SQL[] {
  return bounds.flatMap(([operator, value]) =>
    value === undefined ? [] : [sql`${column} ${sql.raw(operator)} ${value}`],
  );
}

function amountRange(bounds: Bounds<number> | undefined): SQL[] {
  if (!bounds) return [];
  const amount = (value: number | undefined) => (value === undefined ? undefined : sql`${value}::bigint`);
  return compared(disputes.amount, [
    ['>=', amount(bounds.gte)],
    ['>', amount(bounds.gt)],
    ['<=', amount(bounds.lte)],
    ['<', amount(bounds.lt)],
  ]);
}

const second = 1000;

/** The moments a time filter lets through, `from` included and `until` not; either open. */
export interface Window {
  from?: Date;
  until?: Date;
}

/**
 * Timestamps are compared to the second, as the API shows them: `lte` a dispute's shown `created` includes
 * it, though Postgres keeps milliseconds. Each bound is cut to its second T and the column's own second is
 * compared with it, which on the column itself reads: gte T is from T, gt T from T + 1 s, lte T until
 * T + 1 s, lt T until T. Several bounds on one side: the narrowest counts. An `until` past the last moment
 * a timestamp may name bounds nothing and is dropped (Postgres cannot read a year past 9999).
 */
export function windowOf(bounds: Bounds<Date> | undefined): Window {
  const at = (date: Date, plus = 0) => Math.floor(date.getTime() / second) * second + plus;
  const starts = [bounds?.gte && at(bounds.gte), bounds?.gt && at(bounds.gt, second)];
  const ends = [bounds?.lte && at(bounds.lte, second), bounds?.lt && at(bounds.lt)];
  const from = starts.filter((start) => start !== undefined);
  const until = ends.filter((end) => end !== undefined);
  return {
    ...(from.length > 0 && { from: new Date(Math.max(...from)) }),
    ...(until.length > 0 && Math.min(...until) <= latestTimestamp && { until: new Date(Math.min(...until)) }),
  };
}

function timeRange(column: AnyPgColumn, bounds: Bounds<Date> | undefined): SQL[] {
  const { from, until } = windowOf(bounds);
  if (from && from.getTime() > latestTimestamp) return [sql`false`];
  const at = (date: Date | undefined) => date && sql`${date.toISOString()}::timestamptz`;
  return compared(column, [
    ['>=', at(from)],
    ['<', at(until)],
  ]);
}
