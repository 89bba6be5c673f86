import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { connectDatabase, type ServerDatabase } from '../../src/db/client.js';
import { postgresAdminUrl, withDatabase } from './services.js';

export interface TestDatabase extends ServerDatabase {
  url: string;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database of this test file's own, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  // The creation time in the name lets a later run tell an abandoned database from one in use.
  const name = `rebuttal_test_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${inject('templateDatabase')}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(postgresAdminUrl, name);
  const database = connectDatabase(url, { max: 5 });
  return {
    ...database,
    url,
    async drop() {
      await database.close();
      const cleaner = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
      try {
        await cleaner.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleaner.end();
      }
    },
  };
}
