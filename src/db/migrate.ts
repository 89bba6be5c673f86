import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { is } from 'drizzle-orm';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { type PostgresJsDatabase, PostgresJsSession } from 'drizzle-orm/postgres-js';
import { migrate as migrateServer } from 'drizzle-orm/postgres-js/migrator';
import type { Db } from './client.js';

/** The package's committed drizzle/ folder, found upwards from this file (works from src/ and dist/src/). */
function migrationsFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root holding drizzle/');
    dir = parent;
  }
  return join(dir, 'drizzle');
}

/** The same migrations on either driver; drizzle's migrators differ only in how they send them. */
export async function runMigrations(db: Db): Promise<void> {
  const config = { migrationsFolder: migrationsFolder() };
  if (is(db._.session, PostgresJsSession)) {
    await migrateServer(db as PostgresJsDatabase<never>, config);
    return;
  }
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  await migrate(db as PgliteDatabase<never>, config);
}
