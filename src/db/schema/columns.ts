import { is, Placeholder, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, customType, index, timestamp } from 'drizzle-orm/pg-core';

export const timestamps = {
  createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
};

/**
 * The index behind a tenant's list, newest first by (created, id). Ascending on purpose: Postgres serves
 * ORDER BY ... DESC by scanning it backwards, while drizzle's .desc() would add NULLS LAST, which no
 * longer matches ORDER BY ... DESC (NULLS FIRST) and leaves the list to a sort of the whole tenant.
 */
export const listIndex = (
  name: string,
  table: { orgId: AnyPgColumn; livemode: AnyPgColumn; createdAt: AnyPgColumn; id: AnyPgColumn },
) => index(name).on(table.orgId, table.livemode, table.createdAt, table.id);

/**
 * `column in ('a', 'b')` with the values written into the SQL, for partial indexes and the queries that
 * must match them: the planner uses a partial index only when the query's predicate visibly implies the
 * index's, which a bound parameter never does. The values are code constants, never input.
 */
export function stateIn(column: AnyPgColumn, values: readonly string[]): SQL {
  const list = values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ');
  return sql`${column} in (${sql.raw(list)})`;
}

/**
 * `column = any($1::type[])`: one parameter whatever the number of values, so the statement's text is the
 * same for every batch, and Postgres parses and plans it once per connection (an IN list of n parameters
 * is a new statement for every n).
 */
export function anyOf(
  column: AnyPgColumn,
  values: readonly string[] | Placeholder,
  type: 'uuid' | 'text',
): SQL {
  // A placeholder (sql.placeholder) for a query built once: db/statements.ts, builtOnce.
  const array = is(values, Placeholder) ? values : sql.param(values);
  return sql`${column} = any(${array}::${sql.raw(type)}[])`;
}

/**
 * Read as a Buffer on either driver: postgres-js answers bytea with one, PGlite (the embedded database) with
 * a plain Uint8Array, whose `toString('base64')` (adapters encode the PDF so) would give its bytes as a list.
 */
export const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) =>
    Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
});
