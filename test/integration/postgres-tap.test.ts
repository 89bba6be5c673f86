import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostgresTap, startPostgresTap } from '../bench/lib/postgres-tap.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { postgresAdminUrl } from '../helpers/services.js';

/** The search bench's statement timer: real Postgres behind it, postgres-js in front, as the service uses. */
let database: TestDatabase;
let tap: PostgresTap;
let client: postgres.Sql;

beforeAll(async () => {
  database = await createTestDatabase();
  const server = new URL(postgresAdminUrl);
  tap = await startPostgresTap({ host: server.hostname, port: Number(server.port || 5432) });
  const url = new URL(database.url);
  url.port = String(tap.port);
  client = postgres(url.toString(), { max: 1, prepare: true, ssl: false, onnotice: () => {} });
});

afterAll(async () => {
  await client?.end();
  await tap?.close();
  await database?.drop();
});

describe('postgres tap', () => {
  it('times each statement with its SQL, prepared ones on their later executions too', async () => {
    await client`select 1`;
    const from = tap.timings.length;
    for (const n of [1, 2, 3]) expect(await client`select ${n}::int + 1 as n`).toEqual([{ n: n + 1 }]);
    expect(await client`select pg_sleep(0.05)`).toHaveLength(1);
    expect(await client.unsafe('select 7 as simple').simple()).toEqual([{ simple: 7 }]);

    const seen = tap.timings.slice(from);
    expect(seen.map((timing) => timing.sql)).toEqual([
      'select $1::int + 1 as n',
      'select $1::int + 1 as n',
      'select $1::int + 1 as n',
      'select pg_sleep(0.05)',
      'select 7 as simple',
    ]);
    expect(seen[3]?.ms).toBeGreaterThanOrEqual(50);
    for (const timing of seen) expect(timing.ms).toBeGreaterThan(0);
    const starts = seen.map((timing) => timing.started);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('counts the statements sent and not answered yet', async () => {
    expect(tap.pending()).toBe(0);
    const sleeping = client`select pg_sleep(0.3)`.execute();
    await expect.poll(() => tap.pending(), { timeout: 250 }).toBe(1);
    await sleeping;
    expect(tap.pending()).toBe(0);
    expect(tap.timings.at(-1)).toMatchObject({ sql: 'select pg_sleep(0.3)' });
  });

  it('passes an encrypting client through untimed, saying why', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    const url = new URL(database.url);
    url.port = String(tap.port);
    // 'prefer' asks the server for TLS first; it works whatever the server answers.
    const asking = postgres(url.toString(), { max: 1, ssl: 'prefer', onnotice: () => {} });
    try {
      const from = tap.timings.length;
      expect(await asking`select 5 as n`).toEqual([{ n: 5 }]);
      expect(tap.timings.length).toBe(from);
      expect(said).toHaveBeenCalledWith(expect.stringContaining('sslmode=disable'));
    } finally {
      await asking.end();
      said.mockRestore();
    }
  });
});
