import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';

/**
 * A migrated embedded database (PGlite, what `npm start` uses) in a directory of its own for the test file,
 * removed afterwards. Read `db()` inside tests: it is opened in `beforeAll`.
 */
export function useEmbeddedDatabase(name: string): { db: () => Database['db'] } {
  let dataDir: string | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `rebuttal-${name}-`));
    database = await openDatabase({ DATABASE_URL: undefined, DATA_DIR: dataDir });
    await runMigrations(database.db);
  }, 120_000);
  afterAll(async () => {
    await database?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return {
    db: () => {
      if (!database) throw new Error('the embedded database is opened in beforeAll');
      return database.db;
    },
  };
}
