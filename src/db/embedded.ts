import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { createWhole } from '../files.js';
import { type Database, drizzleSettings } from './client.js';

/**
 * Postgres embedded in the process (PGlite) for `npm start` with nothing configured. PGlite is one
 * process's database: its files under DATA_DIR/pg must never be opened by two processes at once, so the
 * opener holds DATA_DIR/pg.lock (its pid) while the database is open, and a second opener is refused with
 * what to do instead, as is a second opener in the same process. A lock left by a process that died is
 * taken over (also one naming this process's pid, which a restarted container often reuses, unless this
 * process holds it).
 */
export async function openEmbeddedDatabase(dataDir: string): Promise<Database> {
  const directory = join(dataDir, 'pg');
  const lock = join(dataDir, 'pg.lock');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await takeLock(lock, directory);
  let client: PGlite;
  try {
    client = await PGlite.create(directory);
  } catch (error) {
    await releaseLock(lock);
    throw error;
  }
  const db = drizzle({ client, ...drizzleSettings });
  return {
    db,
    sessionDb: db,
    describe: `embedded Postgres (PGlite) in ${directory}`,
    async listen(channel, onPayload, onListening) {
      const unlisten = await client.listen(channel, onPayload);
      // One connection in this process: listening never restarts.
      onListening?.();
      return () => unlisten();
    },
    async close() {
      await client.close();
      await releaseLock(lock);
    },
  };
}

/** The lock files this process holds (absolute paths): its own pid in a lock file is not enough to tell. */
const heldLocks = new Set<string>();

async function takeLock(lock: string, directory: string): Promise<void> {
  const key = resolve(lock);
  if (heldLocks.has(key)) {
    throw new Error(
      `the embedded database in ${directory} is in use by this process already; close it before opening it again`,
    );
  }
  // Claimed before the first await, so that two opens started together in this process cannot both take it.
  heldLocks.add(key);
  try {
    for (let tries = 0; tries < 50; tries++) {
      if (await createWhole(lock, String(process.pid))) return;
      const holder = await pidIn(lock);
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `the embedded database in ${directory} is in use by process ${holder} (a running \`npm start\`); ` +
            'stop it first, or set DATABASE_URL to a Postgres server that several processes can share ' +
            `(if no such process runs, that pid is another program's: delete ${lock})`,
        );
      }
      if (await takeOver(lock, holder)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`could not take the lock ${lock} of the embedded database`);
  } catch (error) {
    heldLocks.delete(key);
    throw error;
  }
}

/** The pid a lock file names; 0 when there is none. */
async function pidIn(file: string): Promise<number> {
  return Number((await readFile(file, 'utf8').catch(() => '')).trim()) || 0;
}

/**
 * Replaces a lock its holder (`dead`) left, one process at a time: two starting together after a crash
 * must not both remove the lock and both place theirs. The taker holds `<lock>.takeover` while it checks
 * the lock still names `dead` and replaces it; the other finds it taken, and then finds the new holder.
 */
async function takeOver(lock: string, dead: number): Promise<boolean> {
  const claim = `${lock}.takeover`;
  if (!(await createWhole(claim, String(process.pid)))) {
    // A taker that died mid-way leaves its claim: cleared for the next try.
    const taker = await pidIn(claim);
    if (!taker || !isAlive(taker)) await rm(claim, { force: true });
    return false;
  }
  try {
    if ((await pidIn(lock)) !== dead) return false;
    await rm(lock, { force: true });
    return await createWhole(lock, String(process.pid));
  } finally {
    await rm(claim, { force: true });
  }
}

async function releaseLock(lock: string): Promise<void> {
  await rm(lock, { force: true });
  heldLocks.delete(resolve(lock));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
