import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleErrors } from '../../src/api/middleware/errors.js';
import { boundingDatabaseWaits, requestDatabaseWaitMs, TransactionAborted } from '../../src/db/bounded.js';
import { rowsOf, type Tx } from '../../src/db/client.js';
import { DatabaseUnavailable, databaseUnavailableIn } from '../../src/db/unavailable.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * A transaction never commits past a failed statement (issue 17, docs/architecture.md "Behind a pooler"):
 * Postgres answers that COMMIT with ROLLBACK and no error, so a caller that went on after the failure
 * would be told its writes were made. Drizzle's `db.transaction` on the real Postgres, in a worker (no
 * bound) and inside an API request's bound.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql`create table probe (id integer primary key)`;
});
afterAll(async () => {
  await database?.drop();
});
beforeEach(async () => {
  await database.sql`truncate probe`;
});

const stored = async () =>
  (await database.sql<{ id: number }[]>`select id from probe order by id`).map((row) => row.id);
const insert = (tx: Tx, id: number) => tx.execute(sql`insert into probe values (${id})`);
const abortedBy = (code: string) =>
  `a statement in this transaction failed (Postgres ${code}, probe, probe_pkey) and the transaction went on; it was rolled back, not committed`;

describe.each([
  ['in a worker', <T>(work: () => Promise<T>) => work()],
  ['in an API request', <T>(work: () => Promise<T>) => boundingDatabaseWaits(requestDatabaseWaitMs, work)],
])('%s', (_where, within) => {
  it('a transaction that caught a failed statement and went on rejects, and stores nothing', async () => {
    const outcome = within(() =>
      database.db.transaction(async (tx) => {
        await insert(tx, 1);
        await insert(tx, 1).catch(() => {});
        return 'done';
      }),
    );
    await expect(outcome).rejects.toThrow(new TransactionAborted(abortedBy('23505')));
    await expect(outcome).rejects.toBeInstanceOf(TransactionAborted);
    expect(await stored()).toEqual([]);
  });

  it('a transaction that returned before a failed statement answered rejects, and stores nothing', async () => {
    const outcome = within(() =>
      database.db.transaction(async (tx) => {
        await insert(tx, 1);
        void insert(tx, 1).catch(() => {});
        return 'done';
      }),
    );
    await expect(outcome).rejects.toThrow(new TransactionAborted(abortedBy('23505')));
    expect(await stored()).toEqual([]);
  });

  it('a failure in a savepoint that was rolled back leaves the transaction committing its other writes', async () => {
    const outcome = within(() =>
      database.db.transaction(async (tx) => {
        await insert(tx, 1);
        const nested = await tx
          .transaction(async (savepoint) => {
            await insert(savepoint, 2);
            await insert(savepoint, 1);
          })
          .catch((error: unknown) => (error as { cause?: { code?: string } }).cause?.code);
        await insert(tx, 3);
        return nested;
      }),
    );
    await expect(outcome).resolves.toBe('23505');
    expect(await stored()).toEqual([1, 3]);
  });

  it('a savepoint that caught a failed statement is refused and rolled back; the transaction commits', async () => {
    let refused: unknown;
    await within(() =>
      database.db.transaction(async (tx) => {
        await insert(tx, 1);
        await tx
          .transaction(async (savepoint) => {
            await insert(savepoint, 2);
            await insert(savepoint, 1).catch(() => {});
          })
          .catch((error: unknown) => {
            refused = error;
          });
        await insert(tx, 3);
      }),
    );
    expect(refused).toEqual(new TransactionAborted(abortedBy('23505')));
    expect(await stored()).toEqual([1, 3]);
  });

  it('a transaction without failures commits, savepoints included', async () => {
    const outcome = within(() =>
      database.db.transaction(async (tx) => {
        await insert(tx, 1);
        await tx.transaction(async (savepoint) => {
          await insert(savepoint, 2);
        });
        return rowsOf(await tx.execute(sql`select count(*)::int as n from probe`))[0];
      }),
    );
    await expect(outcome).resolves.toEqual({ n: 2 });
    expect(await stored()).toEqual([1, 2]);
  });
});

type ErrorBody = { error: { type: string } };

describe('the API answer', () => {
  it('a statement that gave up on Postgres, caught: the transaction is refused as Postgres unavailable', async () => {
    const outcome = boundingDatabaseWaits(requestDatabaseWaitMs, () =>
      database.db.transaction(async (tx) => {
        await insert(tx, 1);
        await tx.execute(sql`select pg_sleep(${(requestDatabaseWaitMs + 500) / 1000})`).catch(() => {});
      }),
    );
    const error = await outcome.catch((rejected: unknown) => rejected);
    expect(error).toBeInstanceOf(TransactionAborted);
    expect(databaseUnavailableIn(error)).toEqual(
      new DatabaseUnavailable(`no answer from Postgres within ${requestDatabaseWaitMs} ms`),
    );
    await expect.poll(stored, { timeout: 5000 }).toEqual([]);
  });

  it('is 503 unavailable with Retry-After when the failure was Postgres away, else 500 server_error', async () => {
    const app = express();
    app.post('/away', (_req, _res, next) =>
      next(new TransactionAborted('aborted', { cause: new DatabaseUnavailable('away') })),
    );
    app.post('/bug', (_req, _res, next) => next(new TransactionAborted('aborted')));
    app.use(handleErrors(createLogger('silent')));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const away = await fetch(`${base}/away`, { method: 'POST' });
      expect([
        away.status,
        away.headers.get('retry-after'),
        ((await away.json()) as ErrorBody).error.type,
      ]).toEqual([503, '2', 'unavailable']);
      const bug = await fetch(`${base}/bug`, { method: 'POST' });
      expect([bug.status, ((await bug.json()) as ErrorBody).error.type]).toEqual([500, 'server_error']);
    } finally {
      server.close();
    }
  });
});
