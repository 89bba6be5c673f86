import { AsyncLocalStorage } from 'node:async_hooks';
import { Failure } from '../domain/failure.js';
import { TimeLimitError, within } from '../time-limit.js';
import { DatabaseUnavailable, isConnectionFailure, isDatabaseUnavailable } from './unavailable.js';

/**
 * postgres-js's client as drizzle uses it, watched for two things no driver setting gives.
 *
 * Bounded waits, for work that must answer someone (an API request): postgres-js has no query timeout, and
 * on a server that takes connections but never answers (a hung server, a partition) a query waits for
 * ever. Inside `boundingDatabaseWaits`, each wait (a statement; a transaction's BEGIN, and its COMMIT or
 * ROLLBACK) that passes the bound, and each connection failure, rejects with DatabaseUnavailable. Outside
 * it (the workers, migrations) waits are postgres-js's own: a job may take its time and retries on its own.
 *
 * Commits that hold, everywhere: Postgres answers COMMIT in a transaction a failed statement aborted with
 * ROLLBACK, not an error, and `begin` does not read that answer. postgres-js refuses to commit after a
 * failure it has already seen, but not after one still on its way when the callback returns (a statement
 * not awaited): a transaction's callback returning is therefore followed by waiting for every statement it
 * started, and by a TransactionAborted when one of them failed.
 */
const bound = new AsyncLocalStorage<number>();

/** Under the readiness probe's 2 s (readiness.ts): a client hears within it that Postgres is away. */
export const requestDatabaseWaitMs = 1500;

export function boundingDatabaseWaits<T>(ms: number, work: () => T): T {
  return bound.run(ms, work);
}

type Callback = (sql: object) => unknown;

/**
 * A transaction (or savepoint) refused its COMMIT: a statement directly in it failed, and its callback
 * went on (caught the failure, or returned before the answer came). It was rolled back; nothing it wrote
 * is stored. A bug in the caller, unless the failure (the cause) is Postgres being away.
 */
export class TransactionAborted extends Failure {
  override readonly name = 'TransactionAborted';
  readonly permanent = false;
}

/**
 * What a transaction's callback started on its handle, in order: each statement's answer, and each
 * savepoint's end (whose failure is not the transaction's: it was rolled back to the savepoint).
 */
type Started = Promise<unknown>[];

/** postgres-js's client as drizzle uses it (`unsafe`, `begin`, a transaction's `savepoint`), watched. */
export function boundedClient<S extends object>(sql: S, started?: Started): S {
  return new Proxy(sql, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property === 'unsafe') {
        return (...args: unknown[]) =>
          watchedQuery(method.apply(target, args) as PromiseLike<unknown>, started);
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const ended = boundedScope(
            (callback) => method.apply(target, [...args.slice(0, -1), callback]) as PromiseLike<unknown>,
            args.at(-1) as Callback,
          );
          started?.push(ended.catch(() => {}));
          return ended;
        };
      }
      return value;
    },
  });
}

/**
 * A postgres-js query (a lazy promise drizzle first calls `.values()` on): its answer, observed when it is
 * first awaited (which sends it), is kept in `started` and, once the bound passes, is DatabaseUnavailable.
 * The query itself is abandoned, not cancelled: a cancel request could reach another statement on a
 * pipelined connection.
 */
function watchedQuery<Q extends PromiseLike<unknown>>(query: Q, started: Started | undefined): Q {
  const ms = bound.getStore();
  if (ms === undefined && started === undefined) return query;
  let answer: Promise<unknown> | undefined;
  const proxy: Q = new Proxy(query, {
    get(target, property) {
      if (property === 'then' || property === 'catch' || property === 'finally') {
        if (!answer) {
          answer =
            ms === undefined
              ? new Promise((resolve, reject) => target.then(resolve, reject))
              : answerWithin(target, ms);
          started?.push(answer);
        }
        return answer[property].bind(answer);
      }
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...args: unknown[]) => unknown).apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}

/**
 * A transaction (or savepoint): its work, then waiting for what the work started, refusing the commit
 * when a statement failed. Bounded while waiting for its opening and for its end, not while its own work
 * runs (each statement in it is bounded itself). A transaction given up on before its work started rolls
 * back should its BEGIN be answered later: nothing is written after the client was answered.
 */
function boundedScope(open: (callback: Callback) => PromiseLike<unknown>, work: Callback): Promise<unknown> {
  const committing = async (sql: object) => {
    const started: Started = [];
    const returned = work(boundedClient(sql, started));
    // postgres-js's `begin` also takes an array of queries, and sends them.
    const result = await (Array.isArray(returned) ? Promise.all(returned) : returned);
    await refuseAfterFailure(started);
    return result;
  };
  const ms = bound.getStore();
  if (ms === undefined) return Promise.resolve(open(committing));
  let timer: NodeJS.Timeout | undefined;
  let givenUp = false;
  return new Promise((resolve, reject) => {
    const arm = (waitingFor: string) => {
      timer = setTimeout(() => {
        givenUp = true;
        reject(new DatabaseUnavailable(`no answer from Postgres within ${ms} ms (${waitingFor})`));
      }, ms);
    };
    arm('opening a transaction');
    open(async (sql) => {
      clearTimeout(timer);
      if (givenUp) throw new DatabaseUnavailable('transaction given up on before it began');
      try {
        return await committing(sql);
      } catch (error) {
        // A statement in it gave up on Postgres: the client hears so now, not once the rollback, queued
        // behind that statement, has its own bound run out.
        if (isDatabaseUnavailable(error)) {
          givenUp = true;
          reject(error);
        }
        throw error;
      } finally {
        if (!givenUp) arm('ending a transaction');
      }
    }).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(unavailableOr(error));
      },
    );
  });
}

/**
 * Throws (so that postgres-js rolls back) at the first of `started` that failed, once each has answered:
 * no round trip of its own, the answers were on their way. The message names the failure by its kind
 * only: a statement's error message may hold the values it was given.
 */
async function refuseAfterFailure(started: Started): Promise<void> {
  for (const answer of started) {
    try {
      await answer;
    } catch (error) {
      throw new TransactionAborted(
        `a statement in this transaction failed (${failureKind(error)}) and the transaction went on; it was rolled back, not committed`,
        { cause: error },
      );
    }
  }
}

function failureKind(error: unknown): string {
  if (error instanceof DatabaseUnavailable) return error.message;
  const { code, table_name: table, constraint_name: constraint } = error as Record<string, unknown>;
  if (typeof code !== 'string') return error instanceof Error ? error.name : typeof error;
  return [`Postgres ${code}`, table, constraint].filter((part) => typeof part === 'string').join(', ');
}

async function answerWithin(query: PromiseLike<unknown>, ms: number): Promise<unknown> {
  try {
    return await within(query as Promise<unknown>, ms, 'Postgres');
  } catch (error) {
    throw error instanceof TimeLimitError ? new DatabaseUnavailable(error.message) : unavailableOr(error);
  }
}

function unavailableOr(error: unknown): unknown {
  if (!isConnectionFailure(error)) return error;
  const code = (error as { code: string }).code;
  return new DatabaseUnavailable(`Postgres connection failed (${code})`, { cause: error });
}
