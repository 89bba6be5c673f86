import type { PGliteInterface } from '@electric-sql/pglite';
import { fillPlaceholders, is, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { PostgresJsSession } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import type { Db, Tx } from './client.js';

/**
 * Statements of constant text for a transaction's hot path (mirroring writes pages of a hundred disputes
 * at a time). Each is rendered once, when its module loads, with `sql.placeholder`s for its values; it then
 * runs as a prepared statement on the transaction's own connection: parsed and planned once per
 * connection, and, with no describe round trip once prepared, pipelined with the statements issued
 * alongside it (Promise.all in one transaction sends them together; Postgres still runs them in order).
 * Behind a transaction-mode pooler the client sends nothing by name (src/db/pooler.ts), and these are
 * parsed each time like any other statement.
 */

/** Renders as connectDatabase's drizzle does (src/db/client.ts: snake_case column names). */
const dialect = new PgDialect({ casing: 'snake_case' });

export interface Statement<Values extends Record<string, unknown>> {
  /** The SQL text, for tests and logs. */
  readonly text: string;
  /** On a transaction's connection, or on `db` as a statement of its own (atomic by itself). */
  run(tx: Tx | Db, values: Values): Promise<Row[]>;
}

type Row = postgres.Row;

export function statement<Values extends Record<string, unknown>>(query: SQL): Statement<Values> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, run: (tx, values) => send(tx, text, fillPlaceholders(params, values)) };
}

/** What a drizzle builder's `.prepare(name)` answers. */
interface PreparedQuery<Values, Result> {
  execute(values: Values): Promise<Result>;
}

/**
 * A drizzle query of constant text, its values `sql.placeholder`s, built once per driver and run as a
 * named statement on whichever handle it is given (a transaction, or `db`), its rows mapped by drizzle as
 * usual. Building is most of what drizzle costs on a hot path (a select or a `returning` of the disputes'
 * fifty columns is built column by column on every call); a prepared query holds the client it was built
 * on, so each run takes the handle's own client instead, as `send` below does.
 */
export function builtOnce<Values extends Record<string, unknown>, Result>(
  build: (db: Db) => PreparedQuery<Values, Result>,
): (db: Db | Tx, values: Values) => Promise<Result> {
  const byDriver = new Map<unknown, PreparedQuery<Values, Result>>();
  return (db, values) => {
    const session = db._.session as unknown as { client: unknown };
    let query = byDriver.get(session.constructor);
    if (!query) {
      query = build(db as Db);
      byDriver.set(session.constructor, query);
    }
    const bound = Object.create(query, { client: { value: session.client } }) as typeof query;
    return bound.execute(values);
  };
}

/**
 * Sends on the client the drizzle transaction runs on: postgres-js's reserved connection, or the embedded
 * database (one connection, so nothing to reserve or pipeline); outside a transaction, on the pool.
 */
async function send(tx: Tx | Db, text: string, params: unknown[]): Promise<Row[]> {
  const { session } = tx._;
  const client = (session as unknown as { client: unknown }).client;
  if (is(session, PostgresJsSession)) {
    return (client as postgres.Sql).unsafe(text, params as never[], { prepare: true });
  }
  const result = await (client as PGliteInterface).query<Row>(text, params, { parsers: rawValues });
  return result.rows;
}

/**
 * Dates, times and numerics arrive as Postgres writes them, as drizzle has postgres-js deliver them
 * (drizzle-orm/postgres-js/driver.js): statements read the same values on either driver.
 */
const rawValues = Object.fromEntries(
  [1082, 1083, 1114, 1115, 1182, 1184, 1185, 1186, 1231, 20, 1700].map((type) => [
    type,
    (value: string) => value,
  ]),
);
