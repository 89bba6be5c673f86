import { fillPlaceholders, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { PostgresJsSession } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import type { Tx } from './client.js';

/**
 * Statements of constant text for a transaction's hot path (mirroring writes pages of a hundred disputes
 * at a time). Each is rendered once, when its module loads, with `sql.placeholder`s for its values; it then
 * runs as a prepared statement on the transaction's own connection: parsed and planned once per
 * connection, and, with no describe round trip once prepared, pipelined with the statements issued
 * alongside it (Promise.all in one transaction sends them together; Postgres still runs them in order).
 */

/** Renders as connectDatabase's drizzle does (src/db/client.ts: snake_case column names). */
const dialect = new PgDialect({ casing: 'snake_case' });

export interface Statement<Values extends Record<string, unknown>> {
  /** The SQL text, for tests and logs. */
  readonly text: string;
  run(tx: Tx, values: Values): Promise<postgres.RowList<postgres.Row[]>>;
}

export function statement<Values extends Record<string, unknown>>(query: SQL): Statement<Values> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return {
    text,
    run: (tx, values) =>
      clientOf(tx).unsafe(text, fillPlaceholders(params, values) as never[], { prepare: true }),
  };
}

/** The postgres-js client a drizzle transaction runs on (its reserved connection). */
function clientOf(tx: Tx): postgres.Sql {
  const session = tx._.session;
  if (!(session instanceof PostgresJsSession)) throw new Error('statements need the postgres-js driver');
  return session.client as postgres.Sql;
}
