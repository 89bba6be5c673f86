import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { connectDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { ensurePostgres, ensureRedis, postgresAdminUrl, withDatabase } from './helpers/services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/**
 * Once per run: make sure the services are up, then migrate one template database that every test file
 * clones (CREATE DATABASE ... TEMPLATE), so each file starts from a fresh, migrated database of its own.
 * The template's name carries a hash of the migrations, so a changed schema gets a new template.
 */
export async function setup(project: TestProject): Promise<void> {
  await ensurePostgres();
  await ensureRedis();
  const folder = join(import.meta.dirname, '..', 'drizzle');
  const hash = createHash('sha256');
  for (const file of readdirSync(folder).sort()) {
    if (file.endsWith('.sql')) hash.update(readFileSync(join(folder, file)));
  }
  const name = `rebuttal_template_${hash.digest('hex').slice(0, 12)}`;

  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      const building = `${name}_building_${process.pid}`;
      await admin.unsafe(`create database "${building}"`);
      const database = connectDatabase(withDatabase(postgresAdminUrl, building), { max: 1 });
      await runMigrations(database.db);
      await database.close();
      // A rename makes the finished template appear at once, so a run that stopped half-way leaves no
      // half-migrated template behind under the real name.
      await admin.unsafe(`alter database "${building}" rename to "${name}"`).catch(async () => {
        await admin.unsafe(`drop database if exists "${building}"`);
      });
    }
    await dropLeftovers(admin);
  } finally {
    await admin.end();
  }
  project.provide('templateDatabase', name);
}

/**
 * Databases of test files from runs killed before they could drop them: those made over an hour ago
 * (their names carry their creation time). Templates of other migration sets are left alone: a
 * concurrent run on another checkout may still be cloning from one.
 */
async function dropLeftovers(admin: postgres.Sql): Promise<void> {
  const databases = await admin<{ datname: string }[]>`
    select datname from pg_database where datname like 'rebuttal_test_%'`;
  const hourAgo = Date.now() / 1000 - 3600;
  const stale = databases.filter(({ datname }) => Number(datname.split('_')[2]) < hourAgo);
  for (const { datname } of stale) {
    await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
  }
}
