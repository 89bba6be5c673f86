import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, chown, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { readCaFile } from '../../src/db/tls.js';
import type { TestDatabase } from './database.js';
import { freePort } from './redis-server.js';
import { testAuthority, testTls } from './tls.js';

const run = promisify(execFile);

export interface TlsPostgres {
  port: number;
  /** The PEM of the CA that signed the server's certificate (for DATABASE_CA_FILE). */
  caFile: string;
  /** Another CA's PEM, which signed nothing the server shows. */
  otherCaFile: string;
  /**
   * A URL to the `postgres` database as the `postgres` user (trusted, over TLS only). `host` is
   * 127.0.0.1 or localhost (both in the certificate) or 127.0.0.2 (where it listens too, not named in it).
   */
  url(sslmode?: string, host?: string): string;
  /**
   * A fresh, migrated database on this server, reached with sslmode=verify-full and the CA (for
   * startTestApi's `database`); `drop()` closes it and drops it.
   */
  database(): Promise<TestDatabase>;
  /** Turns TLS off at the server (`ssl = off`, reloaded): a server without TLS, still `hostssl` only. */
  turnTlsOff(): Promise<void>;
  /** Stops the server at once and removes its files. */
  close(): Promise<void>;
}

/** The newest PostgreSQL server programs Debian's packages installed. */
function serverBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) {
    throw new Error(`no PostgreSQL server under ${root}: install postgresql (apt-get install postgresql)`);
  }
  return join(root, versions[0], 'bin');
}

/**
 * A Postgres server of the test's own on a free loopback port, with TLS on and a certificate for localhost
 * and 127.0.0.1 from a CA made for it, that refuses every connection without TLS (only `hostssl` lines). It
 * runs as the `postgres` user (the server refuses root) from a temporary directory; fsync is off: nothing
 * here must survive a crash. Call `close()` in afterAll.
 */
export async function startTlsPostgres(): Promise<TlsPostgres> {
  const bin = serverBin();
  const dir = await mkdtemp(join(tmpdir(), 'rebuttal-pg-tls-'));
  const data = join(dir, 'data');
  // As root, the server's programs run as postgres, which then owns the directory.
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? await postgresIds() : undefined;
  const asServer = (program: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args])
      : run(join(bin, program), args);
  try {
    if (owner) await chown(dir, owner.uid, owner.gid);
    await asServer('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);

    // The test file's private CA and its server certificate (test/helpers/tls.ts), copied for the server.
    const authority = testAuthority();
    await copyFile(authority.certFile, join(dir, 'server.crt'));
    await copyFile(authority.keyFile, join(dir, 'server.key'));
    // Another CA: a self-signed certificate that signed nothing the server shows.
    await writeFile(join(dir, 'other-ca.crt'), (await testTls()).cert);
    // The server refuses a key others may read.
    await chmod(join(dir, 'server.key'), 0o600);
    for (const file of ['server.crt', 'server.key']) {
      if (owner) await chown(join(dir, file), owner.uid, owner.gid);
    }

    const port = await freePort();
    await appendFile(
      join(data, 'postgresql.conf'),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1,127.0.0.2'",
        `unix_socket_directories = '${dir}'`,
        'ssl = on',
        `ssl_cert_file = '${join(dir, 'server.crt')}'`,
        `ssl_key_file = '${join(dir, 'server.key')}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 50',
        '',
      ].join('\n'),
    );
    // No `host` line: a connection without TLS matches nothing and is refused.
    await writeFile(join(data, 'pg_hba.conf'), 'local all all trust\nhostssl all all 127.0.0.0/8 trust\n');
    if (owner) await chown(join(data, 'pg_hba.conf'), owner.uid, owner.gid);
    await asServer('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);

    const { caFile } = authority;
    const url = (sslmode?: string, host = 'localhost', database = 'postgres') =>
      `postgres://postgres@${host}:${port}/${database}${sslmode ? `?sslmode=${sslmode}` : ''}`;
    return {
      port,
      caFile,
      otherCaFile: join(dir, 'other-ca.crt'),
      url: (sslmode, host) => url(sslmode, host),
      async database() {
        const ca = await readCaFile(caFile);
        const name = `rebuttal_${randomBytes(4).toString('hex')}`;
        const admin = connectDatabase(url('verify-full'), { max: 1, ca });
        await admin.sql.unsafe(`create database "${name}"`).finally(() => admin.close());
        const databaseUrl = url('verify-full', 'localhost', name);
        const database = connectDatabase(databaseUrl, { max: 5, ca });
        await runMigrations(database.db);
        return {
          ...database,
          url: databaseUrl,
          async drop() {
            await database.close();
            const cleaner = connectDatabase(url('verify-full'), { max: 1, ca });
            await cleaner.sql.unsafe(`drop database "${name}" with (force)`).finally(() => cleaner.close());
          },
        };
      },
      async turnTlsOff() {
        await appendFile(join(data, 'postgresql.conf'), 'ssl = off\n');
        await asServer('pg_ctl', ['-D', data, 'reload']);
        const log = join(dir, 'server.log');
        for (let tries = 0; tries < 100; tries++) {
          if ((await readFile(log, 'utf8')).includes('parameter "ssl" changed to "off"')) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`the server did not turn TLS off:\n${await readFile(log, 'utf8')}`);
      },
      async close() {
        await asServer('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await asServer('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'postgres'])).stdout.trim())),
  );
  if (!uid || !gid) throw new Error('no postgres user on this machine: install postgresql');
  return { uid, gid };
}
