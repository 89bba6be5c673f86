import { join } from 'node:path';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import postgres from 'postgres';
import { connectDatabase, type ServerDatabase } from '../../../src/db/client.js';
import { runMigrations } from '../../../src/db/migrate.js';
import { createOrganisation } from '../../../src/features/organisations/organisations.js';
import { postgresAdminUrl, withDatabase } from '../../helpers/services.js';
import { onCleanup, root } from './harness.js';
import { insertDisputes, insertTemplates, SEED_VERSION } from './search-seed.js';

/**
 * The search bench's database, kept between runs: seeding a million disputes takes a minute, measuring
 * them seconds. It is named by its size (`rebuttal_search_bench_1m`, `_100k`; not `rebuttal_bench_*`,
 * which other benches drop as leftovers) and carries a mark in its comment, written when seeding ended:
 * the seed's version, the number of disputes and the organisation. A run reuses it when the mark matches
 * and every migration it has applied is still the committed one; migrations added since are applied to
 * it, as a deployment would, and the tables analysed again. Anything else (no mark: a seed that was
 * interrupted; another seed version; a migration that changed or vanished, as on another branch) drops
 * it and seeds anew. `drop database rebuttal_search_bench_1m` forces that.
 */

export interface SearchDatabase {
  name: string;
  url: string;
  /** The organisation holding the disputes (test mode); two small neighbours hold a fortieth each. */
  org: string;
  reused: boolean;
  /** What preparing it took: seeding, or applying new migrations. */
  seconds: number;
  migrationsApplied: number;
}

interface Mark {
  seed: number;
  disputes: number;
  org: string;
}

const batch = 100_000;

export async function keptSearchDatabase(disputes: number): Promise<SearchDatabase> {
  const size = disputes >= 1_000_000 ? `${disputes / 1_000_000}m` : `${disputes / 1000}k`;
  const name = `rebuttal_search_bench_${size}`;
  const url = withDatabase(postgresAdminUrl, name);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  // Held until the bench ends (closing the connection releases it): two runs at once would seed over each
  // other, make each other's key stale, and measure each other's load.
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  onCleanup(() => admin.end());
  const [free] = await admin<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtext(${name})) as locked`;
  if (!free?.locked) {
    console.log(`waiting for another run of the search bench to finish with ${name}`);
    await admin`select pg_advisory_lock(hashtext(${name}))`;
  }
  const mark = await readMark(admin, name);
  const kept = mark?.seed === SEED_VERSION && mark.disputes === disputes ? await migrated(url) : null;
  if (mark && kept) return { name, url, org: mark.org, reused: true, seconds: seconds(), ...kept };

  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"`);
  const database = connectDatabase(url, { max: 1 });
  try {
    await runMigrations(database.db);
    const org = await seed(database, disputes);
    const json = JSON.stringify({ seed: SEED_VERSION, disputes, org } satisfies Mark);
    await admin.unsafe(`comment on database "${name}" is '${json.replaceAll("'", "''")}'`);
    return { name, url, org, reused: false, seconds: seconds(), migrationsApplied: 0 };
  } finally {
    await database.close();
  }
}

/** The kept database brought up to the committed migrations; null when it cannot be (see above). */
async function migrated(url: string): Promise<{ migrationsApplied: number } | null> {
  const database = connectDatabase(url, { max: 1 });
  try {
    const applied = await appliedMigrations(database);
    if (applied === null) return null;
    await runMigrations(database.db);
    const migrationsApplied = ((await appliedMigrations(database)) ?? applied).length - applied.length;
    // New indexes need statistics of their own (expression indexes) before the planner trusts them.
    if (migrationsApplied > 0) await database.sql.unsafe('vacuum analyze');
    return { migrationsApplied };
  } finally {
    await database.close();
  }
}

async function readMark(admin: postgres.Sql, name: string): Promise<Mark | null> {
  const [row] = await admin<{ mark: string | null }[]>`
    select shobj_description(oid, 'pg_database') as mark from pg_database where datname = ${name}`;
  try {
    return row?.mark ? (JSON.parse(row.mark) as Mark) : null;
  } catch {
    return null;
  }
}

/**
 * The hashes of the migrations the database has applied, when they are the first of the committed ones
 * in order (drizzle applies what comes after); null when one differs or the database has more.
 */
async function appliedMigrations(database: ServerDatabase): Promise<string[] | null> {
  const committed = readMigrationFiles({ migrationsFolder: join(root, 'drizzle') }).map((m) => m.hash);
  const rows = await database.sql<
    { hash: string }[]
  >`select hash from drizzle.__drizzle_migrations order by id`;
  const applied = rows.map((row) => row.hash);
  return applied.every((hash, index) => committed[index] === hash) ? applied : null;
}

/** The organisation of `disputes` disputes, two neighbours of a fortieth each; then statistics. */
async function seed(database: ServerDatabase, disputes: number): Promise<string> {
  const now = new Date();
  const organisations = [
    { name: 'Search Bench Ltd', disputes },
    { name: 'Neighbour One Ltd', disputes: disputes / 40 },
    { name: 'Neighbour Two Ltd', disputes: disputes / 40 },
  ];
  // The indexes are built once over the rows rather than kept up row by row: about half the time.
  const { sql } = database;
  const indexes = await sql<{ name: string; definition: string }[]>`
    select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as definition
    from pg_index where indrelid = 'disputes'::regclass and not indisprimary`;
  for (const { name } of indexes) await sql.unsafe(`drop index ${name}`);
  const orgs: string[] = [];
  for (const organisation of organisations) {
    const { org } = await createOrganisation(database.db, { name: organisation.name });
    orgs.push(org);
    await insertTemplates(database.db, org);
    for (let from = 1; from <= organisation.disputes; from += batch) {
      const to = Math.min(organisation.disputes, from + batch - 1);
      await insertDisputes(sql, org, { from, to }, now);
    }
  }
  for (const { definition } of indexes) await sql.unsafe(definition);
  // As autovacuum would leave a table this size: statistics, and a visibility map for index-only scans.
  await sql.unsafe('vacuum analyze');
  return orgs[0] as string;
}
