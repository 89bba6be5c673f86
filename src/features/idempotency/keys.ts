import { and, eq, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { type Db, rowsOf, type Tx } from '../../db/client.js';
import { withFirstWrite } from '../../db/first-write.js';
import { idempotencyKeys } from '../../db/schema/index.js';
import { ApiError } from '../../domain/errors.js';
import type { SecretBox } from '../../secrets.js';
import { rowName, sealedAt } from '../secrets/sealed-columns.js';
import type { Tenant } from '../tenancy.js';

/**
 * The kept answers of `Idempotency-Key` requests (docs/api.md, "Idempotent requests"), one row per key an
 * organisation sent in a mode. A request takes its key in a short transaction of its own (`takeKey`); its
 * first write transaction stamps `wrote_at` in that same transaction (`claim.db`); its answer is kept
 * when it is done (`keepAnswer`). `locked_until`, to the millisecond, is the claim's token: every later
 * statement of the request names it, so a request whose lease ran out and whose key a repeat took over
 * can neither write nor keep an answer.
 */

/** How long a kept answer stays: a repeat after that is a new request. */
export const keptForMs = 24 * 3600_000;

/** What a request with a key sends, as far as its key is concerned. */
export interface KeyedRequest {
  tenant: Tenant;
  key: string;
  /** The request's fingerprint (SHA-256 hex of its method, path and parameters). */
  fingerprint: string;
  /** How long the key is held for this request before a repeat may take it over. */
  leaseMs: number;
}

/** An answer as kept and replayed: status, the headers that describe it, and its body. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The key, held for one request. */
export interface Claim {
  request: KeyedRequest;
  token: Date;
  /** The request's database: its first write transaction stamps the key's `wrote_at`. */
  db: Db;
}

export type Taken =
  | { kind: 'run'; claim: Claim }
  | { kind: 'replay'; answer: KeptAnswer }
  | { kind: 'refused'; error: ApiError };

interface IdempotencyDeps {
  db: Db;
  secrets: SecretBox;
}

const lease = (request: KeyedRequest) =>
  sql`date_trunc('milliseconds', now() + ${request.leaseMs} * interval '1 millisecond')`;

const rowOf = ({ tenant, key }: KeyedRequest) =>
  and(
    eq(idempotencyKeys.orgId, tenant.orgId),
    eq(idempotencyKeys.livemode, tenant.livemode),
    eq(idempotencyKeys.key, key),
  );

const heldBy = (claim: Pick<Claim, 'request' | 'token'>) =>
  and(rowOf(claim.request), eq(idempotencyKeys.lockedUntil, claim.token));

const answerSealedAt = ({ tenant, key }: KeyedRequest) =>
  sealedAt('idempotentAnswer', rowName([tenant.orgId, tenant.livemode, key]));

/**
 * Takes the key for this request, or says why not: the answer kept for the same request, or a refusal
 * (another request under the key, the first still running, or the first changed data and lost its answer).
 * A key whose first request stopped before writing anything and is past its lease is taken over; one
 * kept longer than `keptForMs` is a new key.
 */
export async function takeKey(deps: IdempotencyDeps, request: KeyedRequest): Promise<Taken> {
  // A row deleted between the insert's conflict and the read (its request failed, or was swept) is
  // inserted again: that settles within a few rounds.
  for (let round = 0; ; round++) {
    const taken = await deps.db.transaction((tx) => takeOnce(tx, deps, request));
    if (taken || round === 3) return taken ?? { kind: 'refused', error: inProgress() };
  }
}

async function takeOnce(tx: Tx, deps: IdempotencyDeps, request: KeyedRequest): Promise<Taken | null> {
  const { tenant, key, fingerprint } = request;
  const [inserted] = await tx
    .insert(idempotencyKeys)
    .values({ ...tenant, key, requestHash: fingerprint, lockedUntil: lease(request) })
    .onConflictDoNothing()
    .returning({ token: idempotencyKeys.lockedUntil });
  if (inserted) return run(deps, request, inserted.token);
  const [row] = await tx
    .select({
      requestHash: idempotencyKeys.requestHash,
      wroteAt: idempotencyKeys.wroteAt,
      status: idempotencyKeys.status,
      headers: idempotencyKeys.headers,
      body: idempotencyKeys.body,
      locked: sql<boolean>`coalesce(${idempotencyKeys.lockedUntil} > now(), false)`,
      expired: sql<boolean>`${idempotencyKeys.createdAt} <= now() - ${keptForMs} * interval '1 millisecond'`,
    })
    .from(idempotencyKeys)
    .where(rowOf(request))
    .for('update');
  if (!row) return null;
  if (row.expired) {
    const reset = { requestHash: fingerprint, wroteAt: null, status: null, headers: null, body: null };
    return run(deps, request, await relock(tx, request, { ...reset, createdAt: sql`now()` }));
  }
  if (row.requestHash !== fingerprint) {
    return misused(
      `The Idempotency-Key '${key}' was used for a different request (another method, path or parameters) in the last 24 hours; use a new key for a new request.`,
    );
  }
  if (row.status !== null) {
    const body = Buffer.from(deps.secrets.open(row.body ?? '', answerSealedAt(request)), 'utf8');
    return { kind: 'replay', answer: { status: row.status, headers: row.headers ?? {}, body } };
  }
  if (row.locked) return { kind: 'refused', error: inProgress() };
  if (row.wroteAt !== null) {
    return misused(
      `The first request with the Idempotency-Key '${key}' changed data, but the service stopped before keeping its answer; it will not run again. Retrieve the objects it may have created or changed, and use a new key for a new request.`,
    );
  }
  // Its request stopped (a crash, a lost connection) without writing: this one runs in its place.
  return run(deps, request, await relock(tx, request, {}));
}

async function relock(
  tx: Tx,
  request: KeyedRequest,
  values: PgUpdateSetSource<typeof idempotencyKeys>,
): Promise<Date> {
  const [row] = await tx
    .update(idempotencyKeys)
    .set({ ...values, lockedUntil: lease(request) })
    .where(rowOf(request))
    .returning({ token: idempotencyKeys.lockedUntil });
  if (!row?.token) throw new Error('the idempotency key locked for update was not there');
  return row.token;
}

function run(deps: IdempotencyDeps, request: KeyedRequest, token: Date | null): Taken {
  if (!token) throw new Error('an idempotency key was taken without a lease');
  const held = { request, token };
  return { kind: 'run', claim: { ...held, db: withFirstWrite(deps.db, (tx) => stampWrite(tx, held)) } };
}

const misused = (message: string): Taken => ({
  kind: 'refused',
  error: new ApiError('idempotency_error', message),
});

function inProgress(message = 'A request with this Idempotency-Key is still running; try again shortly.') {
  const error = new ApiError('idempotency_in_progress', message);
  error.retryAfterSeconds = 1;
  return error;
}

/**
 * In the request's first write transaction: the key's request has changed data. Refused (and the
 * transaction with it) when a repeat has taken the key over meanwhile, so that the request never runs twice.
 */
async function stampWrite(tx: Tx, held: Pick<Claim, 'request' | 'token'>): Promise<void> {
  const [stamped] = await tx
    .update(idempotencyKeys)
    .set({ wroteAt: sql`coalesce(${idempotencyKeys.wroteAt}, now())` })
    .where(heldBy(held))
    .returning({ key: idempotencyKeys.key });
  if (!stamped) {
    throw inProgress(
      "This request ran past its hold on its Idempotency-Key and a repeat took the key over, so it changed nothing; try again shortly for that repeat's answer.",
    );
  }
}

/**
 * Keeps the request's answer and releases the key. A 5xx answer of a request that wrote nothing is not
 * kept: the key is let go, and a repeat runs the request again. A 5xx after a write is kept, as a 2xx or
 * 4xx is: running the request again could write twice. Nothing happens if the claim was taken over.
 */
export async function keepAnswer(deps: IdempotencyDeps, claim: Claim, answer: KeptAnswer): Promise<void> {
  if (answer.status >= 500) {
    const dropped = await deps.db
      .delete(idempotencyKeys)
      .where(and(heldBy(claim), sql`${idempotencyKeys.wroteAt} is null`))
      .returning({ key: idempotencyKeys.key });
    if (dropped.length > 0) return;
  }
  await deps.db
    .update(idempotencyKeys)
    .set({
      status: answer.status,
      headers: answer.headers,
      body: deps.secrets.seal(answer.body.toString('utf8'), answerSealedAt(claim.request)),
      lockedUntil: null,
    })
    .where(heldBy(claim));
}

/**
 * Deletes keys kept longer than `keptForMs`, `batch` rows a statement (by `created_at`'s index), and
 * answers how many. A key past its time is already a new key to `takeKey`; this only frees the space.
 */
export async function sweepIdempotencyKeys(db: Db, batch = 5000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [swept] = rowsOf<{ count: number }>(
      await db.execute(sql`
        with swept as (
          delete from ${idempotencyKeys} where ctid = any(array(
            select ctid from ${idempotencyKeys}
            where ${idempotencyKeys.createdAt} <= now() - ${keptForMs} * interval '1 millisecond'
            limit ${batch}))
          returning 1)
        select count(*)::int as count from swept`),
    );
    const count = swept?.count ?? 0;
    deleted += count;
    if (count < batch) return deleted;
  }
}
