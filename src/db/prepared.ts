import type { Db } from './client.js';

/**
 * A prepared statement per database handle. Hot-path reads are prepared once: drizzle then builds their
 * SQL once, and Postgres plans them once per connection instead of on every request.
 */
export function preparedFor<T>(prepare: (db: Db) => T): (db: Db) => T {
  const statements = new WeakMap<Db, T>();
  return (db) => {
    let statement = statements.get(db);
    if (!statement) {
      statement = prepare(db);
      statements.set(db, statement);
    }
    return statement;
  };
}
