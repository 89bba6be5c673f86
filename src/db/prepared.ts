import type { Db } from './client.js';
import { plainDb } from './first-write.js';

/**
 * A prepared statement per database handle. Hot-path reads are prepared once: drizzle then builds their
 * SQL once, and Postgres plans them once per connection instead of on every request.
 */
export function preparedFor<T>(prepare: (db: Db) => T): (db: Db) => T {
  const statements = new WeakMap<Db, T>();
  return (handle) => {
    // A request's handle that watches for its first write (db/first-write.ts) reads as the plain one.
    const db = plainDb(handle);
    let statement = statements.get(db);
    if (!statement) {
      statement = prepare(db);
      statements.set(db, statement);
    }
    return statement;
  };
}
