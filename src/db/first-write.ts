import type { Db, Tx } from './client.js';

/**
 * A database handle that runs `first(tx)` inside the first transaction that writes through it, so that
 * something recorded there commits exactly when that write does (an Idempotency-Key's `wrote_at`:
 * docs/api.md, "Idempotent requests"). Features need not know: they open their transactions as always.
 *
 * Every transaction opened on it runs `first` at its start until one has committed; a transaction that
 * only reads counts too, which errs on the safe side (a request that read in a transaction is treated as
 * one that may have written). A single insert, update or delete outside a transaction is run inside one
 * for the purpose, with `first`. Raw statements (`execute`) and `with` queries outside a transaction are
 * not watched: the features write those only inside their transactions. Once a transaction has committed,
 * the handle is the plain one again.
 */
export function withFirstWrite(db: Db, first: (tx: Tx) => Promise<void>): Db {
  let written = false;
  const inTransaction = async <T>(work: (tx: Tx) => Promise<T>, config?: TransactionConfig): Promise<T> => {
    const result = await db.transaction(async (tx) => {
      if (!written) await first(tx);
      return work(tx);
    }, config);
    written = true;
    return result;
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === unwrapped) return target;
      if (property === 'transaction') return inTransaction;
      if (!written && (property === 'insert' || property === 'update' || property === 'delete')) {
        return (...args: unknown[]) => deferredWrite(inTransaction, property, args);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

type TransactionConfig = Parameters<Db['transaction']>[1];

const unwrapped = Symbol('the handle withFirstWrite wraps');

/** The plain handle under `withFirstWrite` (prepared reads are kept per plain handle: db/prepared.ts). */
export function plainDb(db: Db): Db {
  return (db as Db & { [unwrapped]?: Db })[unwrapped] ?? db;
}

type Builder = Record<PropertyKey, (...args: unknown[]) => unknown> & PromiseLike<unknown>;

/**
 * `db.insert(t).values(v).returning()` and the like, written down as it is built and built again on a
 * transaction once it is awaited (or `execute`d), as drizzle itself sends a query only then.
 */
function deferredWrite(
  inTransaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>,
  operation: 'insert' | 'update' | 'delete',
  args: unknown[],
): unknown {
  const calls: [PropertyKey, unknown[]][] = [];
  let sent: Promise<unknown> | undefined;
  const send = () => {
    sent ??= inTransaction(async (tx) => {
      let builder = (tx[operation] as unknown as (...args: unknown[]) => Builder)(...args);
      for (const [name, callArgs] of calls) builder = builder[name]?.(...callArgs) as Builder;
      return await builder;
    });
    return sent;
  };
  const recorder: unknown = new Proxy(
    {},
    {
      get(_target, property) {
        if (property === 'execute') return send;
        if (property === 'then' || property === 'catch' || property === 'finally') {
          return (...handlers: unknown[]) =>
            (send()[property] as (...handlers: unknown[]) => Promise<unknown>)(...handlers);
        }
        return (...callArgs: unknown[]) => {
          calls.push([property, callArgs]);
          return recorder;
        };
      },
    },
  );
  return recorder;
}
