import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Config } from '../config.js';
import { within } from '../time-limit.js';
import { boundedClient } from './bounded.js';
import * as schema from './schema/index.js';
import { type ConnectionSetting, tlsOptionsFor, tlsProblem } from './tls.js';

/**
 * The one database type the features see. Behind it is either postgres-js on a Postgres server (DATABASE_URL)
 * or PGlite, Postgres compiled to WebAssembly, on files under DATA_DIR (the zero-configuration start).
 * Both run the same migrations and the same SQL; what differs (how a raw statement is sent, how LISTEN is
 * set up) is answered here and in statements.ts, never in a feature.
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle; features take `Db | Tx` where they can run inside a caller's transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  /**
   * For what a transaction-mode pooler cannot carry (migrations): DATABASE_DIRECT_URL's session when set
   * (src/db/pooler.ts), otherwise `db`.
   */
  sessionDb: Db;
  /**
   * Set when notifications cannot be heard (a pooler in front, no DATABASE_DIRECT_URL): `listen` then
   * calls `onListening` every this many milliseconds instead, as though listening had restarted.
   */
  pollMs?: number;
  /** Where the data is, for logs: the server's host and database, or the embedded data directory. */
  describe: string;
  /**
   * LISTEN on a channel; resolves once listening, with the function that stops it. `onListening` runs
   * each time listening (re)starts, when notifications may have been missed.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onListening?: () => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A Postgres server's database, with its raw client (tests and benches use it directly). */
export interface ServerDatabase extends Database {
  sql: postgres.Sql;
}

/** The rows of `db.execute`: postgres-js answers an array of them, PGlite an object holding them. */
export function rowsOf<Row>(result: unknown): Row[] {
  return Array.isArray(result) ? (result as Row[]) : (result as { rows: Row[] }).rows;
}

/** Drizzle's settings for either driver: the schema, and snake_case names (statements.ts renders alike). */
export const drizzleSettings = { schema, casing: 'snake_case' } as const;

export interface ConnectOptions {
  max?: number;
  /** false: no named prepared statements, for a pooler that does not keep sessions (src/db/pooler.ts). */
  prepare?: boolean;
  /** The CA (PEM) that verifies the server's certificate (DATABASE_CA_FILE); unset: the public CAs. */
  ca?: string | undefined;
}

/** A postgres-js client on `url`, over TLS as its sslmode says (src/db/tls.ts). */
export function connectDatabase(url: string, options: ConnectOptions = {}): ServerDatabase {
  const sql = postgres(url, {
    max: options.max ?? 10,
    prepare: options.prepare ?? true,
    ssl: tlsOptionsFor(url, options.ca),
    onnotice: () => {},
    // A server that is down or takes connections without answering fails an attempt in 2 s, not 30.
    connect_timeout: 2,
    // After failures postgres-js waits out a growing backoff (up to 20 s) before a connection tries again,
    // with queries queued behind it: capped at 1 s, so an outage fails requests quickly and a server that
    // is back is used within a second.
    backoff: (retries: number) => Math.min(3 ** retries / 100, 1) * (0.5 + Math.random() / 2),
    // Dates come back as Date; bigint columns are read as numbers by drizzle's mode setting.
  });
  // API requests bound their waits on it, and no transaction on it commits past a failed statement
  // (db/bounded.ts); the raw client is postgres-js as it is.
  const db = drizzle(boundedClient(sql), drizzleSettings);
  return {
    db,
    sessionDb: db,
    sql,
    describe: describeServer(url),
    async listen(channel, onPayload, onListening) {
      const { unlisten } = await sql.listen(channel, onPayload, onListening);
      // Stopping waits on nobody: a pooler out of server connections would hold UNLISTEN for minutes,
      // and closing ends the listening connection anyway.
      return () => within(unlisten(), 1000, 'Postgres').catch(() => {});
    },
    // Queries still waiting after a second (abandoned by a request's bound, or held by a pooler) are cut
    // off: a stopping process does not wait on them (docs/operations.md "Behind a pooler").
    close: () => sql.end({ timeout: 1 }),
  };
}

/** Host, port and database for logs (never the credentials); postgres-js also takes URLs URL cannot parse. */
function describeServer(url: string): string {
  try {
    const { hostname, port, pathname } = new URL(url);
    return `postgres ${hostname}:${port || 5432}${pathname}`;
  } catch {
    return 'a postgres server';
  }
}

export interface ServerDatabaseOptions {
  max?: number;
  /**
   * false for a short process that never LISTENs (the CLI, `release`): it sends unnamed statements
   * without first probing DATABASE_URL for a pooler (src/db/pooler.ts), which behind one costs seconds.
   */
  listens?: boolean;
}

/**
 * DATABASE_URL when set (with DATABASE_DIRECT_URL, or a probe for a pooler: src/db/pooler.ts); otherwise
 * the embedded database under DATA_DIR/pg (loaded only then: a server deployment never loads PGlite).
 */
export async function openDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'> &
    Partial<Pick<Config, 'DATABASE_DIRECT_URL' | 'DATABASE_CA_FILE'>>,
  options: ServerDatabaseOptions = {},
): Promise<Database> {
  const { DATABASE_URL } = config;
  if (DATABASE_URL) {
    const { openServerDatabase } = await import('./pooler.js');
    return openServerDatabase({ ...config, DATABASE_URL }, options);
  }
  const { openEmbeddedDatabase } = await import('./embedded.js');
  return openEmbeddedDatabase(config.DATA_DIR);
}

/**
 * A server's database once it has answered: every process (web, worker, CLI) connects once at start, so
 * that a TLS misconfiguration stops it with one line saying what to fix (db/tls.ts), not a failure later.
 */
export async function answered(
  database: ServerDatabase,
  where: Omit<ConnectionSetting, 'describe'>,
): Promise<ServerDatabase> {
  try {
    await database.sql`select 1`;
    return database;
  } catch (error) {
    await database.close();
    const problem = tlsProblem(error, { ...where, describe: database.describe });
    throw problem ? new Error(problem) : error;
  }
}
