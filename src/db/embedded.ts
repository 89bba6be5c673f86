import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { type Database, drizzleSettings } from './client.js';

/**
 * Postgres embedded in the process (PGlite) for `npm start` with nothing configured. PGlite is one
 * process's database: its files under DATA_DIR/pg must never be opened by two processes at once, so the
 * opener holds DATA_DIR/pg.lock (its pid) while the database is open, and a second opener is refused with
 * what to do instead. A lock left by a process that died is taken over.
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
    await rm(lock, { force: true });
    throw error;
  }
  return {
    db: drizzle({ client, ...drizzleSettings }),
    describe: `embedded Postgres (PGlite) in ${directory}`,
    async listen(channel, onPayload, onListening) {
      const unlisten = await client.listen(channel, onPayload);
      // One connection in this process: listening never restarts.
      onListening?.();
      return () => unlisten();
    },
    async close() {
      await client.close();
      await rm(lock, { force: true });
    },
  };
}

async function takeLock(lock: string, directory: string): Promise<void> {
  for (let tries = 0; tries < 2; tries++) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
    if (holder && holder !== process.pid && isAlive(holder)) {
      throw new Error(
        `the embedded database in ${directory} is in use by process ${holder} (a running \`npm start\`); ` +
          'stop it first, or set DATABASE_URL to a Postgres server that several processes can share',
      );
    }
    await rm(lock, { force: true });
  }
  throw new Error(`could not take the lock ${lock} of the embedded database`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
