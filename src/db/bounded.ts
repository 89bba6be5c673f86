import { AsyncLocalStorage } from 'node:async_hooks';
import { TimeLimitError, within } from '../time-limit.js';
import { DatabaseUnavailable, isConnectionFailure, isDatabaseUnavailable } from './unavailable.js';

/**
 * Bounds how long work that must answer someone (an API request) waits on Postgres. postgres-js has no
 * query timeout: on a server that takes connections but never answers (a hung server, a partition) a
 * query waits for ever. Inside `boundingDatabaseWaits`, each wait (a statement; a transaction's BEGIN,
 * and its COMMIT or ROLLBACK) that passes the bound, and each connection failure, rejects with
 * DatabaseUnavailable. Outside it (the workers, migrations) the client is postgres-js as it is: a job may
 * take its time and retries on its own.
 */
const bound = new AsyncLocalStorage<number>();

/** Under the readiness probe's 2 s (readiness.ts): a client hears within it that Postgres is away. */
export const requestDatabaseWaitMs = 1500;

export function boundingDatabaseWaits<T>(ms: number, work: () => T): T {
  return bound.run(ms, work);
}

type Callback = (sql: object) => unknown;

/**
 * postgres-js's client as drizzle uses it (`unsafe`, `begin`, a transaction's `savepoint`), with its waits
 * bounded where `boundingDatabaseWaits` asks for it.
 */
export function boundedClient<S extends object>(sql: S): S {
  return new Proxy(sql, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property === 'unsafe') {
        return (...args: unknown[]) => boundedQuery(method.apply(target, args) as PromiseLike<unknown>);
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) =>
          boundedScope(
            (callback) => method.apply(target, [...args.slice(0, -1), callback]) as PromiseLike<unknown>,
            args.at(-1) as Callback,
          );
      }
      return value;
    },
  });
}

/**
 * A postgres-js query (a lazy promise drizzle first calls `.values()` on), answering DatabaseUnavailable
 * once the bound passes. The query itself is abandoned, not cancelled: a cancel request could reach
 * another statement on a pipelined connection.
 */
function boundedQuery<Q extends PromiseLike<unknown>>(query: Q): Q {
  const ms = bound.getStore();
  if (ms === undefined) return query;
  let answer: Promise<unknown> | undefined;
  const proxy: Q = new Proxy(query, {
    get(target, property) {
      if (property === 'then' || property === 'catch' || property === 'finally') {
        answer ??= answerWithin(target, ms);
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
 * A transaction (or savepoint): bounded while waiting for its opening and for its end, not while its own
 * work runs (each statement in it is bounded itself). A transaction given up on before its work started
 * rolls back should its BEGIN be answered later: nothing is written after the client was answered.
 */
function boundedScope(open: (callback: Callback) => PromiseLike<unknown>, work: Callback): Promise<unknown> {
  const ms = bound.getStore();
  if (ms === undefined) return Promise.resolve(open(work));
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
        return await work(boundedClient(sql));
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
