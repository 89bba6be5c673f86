import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.js';

export type Db = PostgresJsDatabase<typeof schema>;
/** A transaction handle; services take `Db | Tx` where they can run inside a caller's transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  /** The raw client, for LISTEN/NOTIFY and for closing the pool. */
  sql: postgres.Sql;
  close(): Promise<void>;
}

export function connectDatabase(url: string, options: { max?: number } = {}): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Dates come back as Date; bigint columns are read as numbers by drizzle's mode setting.
  });
  const db = drizzle(sql, { schema, casing: 'snake_case' });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}
