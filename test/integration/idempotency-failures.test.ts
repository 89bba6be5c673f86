import { and, count, eq, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, idempotencyKeys, submissions, templates } from '../../src/db/schema/index.js';
import { keepAnswer, sweepIdempotencyKeys, takeKey } from '../../src/features/idempotency/keys.js';
import { createTemplate } from '../../src/features/templates/templates.js';
import { type RunningWorkers, startWorkers } from '../../src/jobs/workers/engine.js';
import { mockCharges } from '../../src/processors/mock/adapter.js';
import { type CallOptions, startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  getDispute,
  newTenant,
  requiredParams,
  submittableDispute,
  type Tenant,
  uniqueId,
} from '../helpers/disputes.js';
import { errorAnswer, expectReplayOf, keyedBy, storedDisputes } from '../helpers/idempotency.js';

/**
 * docs/api.md, "Idempotent requests", when things go wrong: a 5xx that wrote nothing is not kept and the
 * request runs again, one after a write is kept; a submit answered 202 is replayed, never submitted again;
 * a request that stopped between its write and its answer (rows written here as a crash leaves them) is
 * refused, one that stopped before writing is run again; a request whose key was taken over writes nothing;
 * keys past their 24 hours are new keys, and swept.
 */
let api: TestApi;
let tenant: Tenant;
let running: RunningWorkers | undefined;
let sweeper: RunningWorkers | undefined;
beforeAll(async () => {
  // No workers until the submit tests start one: a submit meanwhile answers 202 once it has waited.
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '5000' } });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await running?.close(1000);
  await sweeper?.close(1000);
  await api.close();
});

const keyed = (key: string, options?: CallOptions) => keyedBy(tenant)(key, options);

const keyRow = async (key: string) =>
  (
    await api.db.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.orgId, tenant.org), eq(idempotencyKeys.key, key)))
  )[0];

const setKeyRow = (key: string, values: PgUpdateSetSource<typeof idempotencyKeys>) =>
  api.db.db
    .update(idempotencyKeys)
    .set(values)
    .where(and(eq(idempotencyKeys.orgId, tenant.org), eq(idempotencyKeys.key, key)));

describe('after a 5xx', () => {
  it('that wrote nothing: the answer is not kept, and the repeat runs the request again', async () => {
    // A column too narrow for what the service writes: the insert fails inside Postgres.
    await api.db.sql`alter table disputes alter column customer type varchar(8)`;
    const params = requiredParams({ customer: 'cus_longer_than_eight' });
    try {
      const first = await api.call('POST', '/v1/disputes', keyed('fails-1', { json: params }));
      expect([first.status, (first.body.error as { type: string }).type]).toEqual([500, 'server_error']);
    } finally {
      await api.db.sql`alter table disputes alter column customer type text`;
    }
    expect(await keyRow('fails-1')).toBeUndefined();

    const repeat = await api.call('POST', '/v1/disputes', keyed('fails-1', { json: params }));
    expect(repeat.status, repeat.text).toBe(201);
    expect(repeat.headers['idempotent-replayed']).toBeUndefined();
    expect(await storedDisputes(api, tenant.org, String(params.id))).toBe(1);
  });
});

describe('a submit', () => {
  it('answered 202 while the processor call is under way is replayed later, and never submitted again', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const path = `/v1/disputes/${dispute.id}/submit`;
    const first = await api.call('POST', path, keyed('submit-1'));
    expect([first.status, first.body.state]).toEqual([202, 'compiling_evidence']);

    running = await startWorkers(api.engine, ['submission']);
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: 20_000 })
      .toBe('submitted');
    const repeat = await api.call('POST', path, keyed('submit-1'));
    expectReplayOf(repeat, first);
    expect(api.mock.calls).toBe(1);
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);
    const [attempts] = await api.db.db
      .select({ n: count() })
      .from(submissions)
      .innerJoin(disputes, eq(submissions.disputeUid, disputes.uid))
      .where(eq(disputes.id, dispute.id));
    expect(attempts?.n).toBe(1);
  }, 30_000);

  it('refused by the processor (502, after its attempt was written) is kept: the repeat does not call again', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      charge: `${mockCharges.refuse}_${Date.now()}`,
    });
    const path = `/v1/disputes/${dispute.id}/submit`;
    const calls = api.mock.calls;
    const first = await api.call('POST', path, keyed('submit-2'));
    expect([first.status, (first.body.error as { type: string }).type]).toEqual([502, 'processor_error']);
    expectReplayOf(await api.call('POST', path, keyed('submit-2')), first);
    expect(api.mock.calls).toBe(calls + 1);
  });
});

describe('a key its first request left unfinished', () => {
  const create = (key: string, id: string) => api.call('POST', '/v1/templates', keyed(key, { json: { id } }));

  /**
   * A template created under `key`, then left as a crash after its write leaves it: no answer kept, the
   * hold passed; `wroteAt: null` as one that stopped before writing (the template removed for the repeat).
   */
  async function unfinished(key: string, values: PgUpdateSetSource<typeof idempotencyKeys> = {}) {
    const id = uniqueId('tpl');
    expect((await create(key, id)).status).toBe(201);
    await api.db.db.delete(templates).where(eq(templates.id, id));
    const lapsed = { status: null, headers: null, body: null, lockedUntil: new Date(Date.now() - 1000) };
    await setKeyRow(key, { ...lapsed, ...values });
    return id;
  }

  it('after changing data, with its answer lost: 400 idempotency_error, and it does not run again', async () => {
    const id = await unfinished('lost-1');
    const repeat = await create('lost-1', id);
    expect([repeat.status, repeat.body]).toEqual([
      400,
      errorAnswer(
        '/v1/templates',
        400,
        'idempotency_error',
        "The first request with the Idempotency-Key 'lost-1' changed data, but the service stopped before keeping its answer; it will not run again. Retrieve the objects it may have created or changed, and use a new key for a new request.",
      ),
    ]);
    expect(repeat.headers['retry-after']).toBeUndefined();
    expect(await api.db.db.select().from(templates).where(eq(templates.id, id))).toEqual([]);
  });

  it('before changing anything, past its hold: the repeat runs the request and its answer is kept', async () => {
    const id = await unfinished('taken-1', { wroteAt: null });
    const repeat = await create('taken-1', id);
    expect(repeat.status, repeat.text).toBe(201);
    expect(repeat.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyRow('taken-1')).toMatchObject({
      status: 201,
      lockedUntil: null,
      wroteAt: expect.any(Date),
    });
    expectReplayOf(await create('taken-1', id), repeat);
  });

  it('still within its hold: 409 idempotency_in_progress with Retry-After: 1', async () => {
    const id = await unfinished('running-1', { lockedUntil: new Date(Date.now() + 60_000) });
    const repeat = await create('running-1', id);
    expect([repeat.status, repeat.body]).toEqual([
      409,
      errorAnswer(
        '/v1/templates',
        409,
        'idempotency_in_progress',
        'A request with this Idempotency-Key is still running; try again shortly.',
      ),
    ]);
    expect(repeat.headers['retry-after']).toBe('1');
  });
});

describe('a request whose key a repeat took over', () => {
  it('writes nothing and keeps no answer', async () => {
    const owner = { orgId: tenant.org, livemode: false };
    const request = { tenant: owner, key: 'overtaken-1', fingerprint: 'f'.repeat(64), leaseMs: 60_000 };
    const taken = await takeKey({ db: api.db.db, secrets: api.deps.secrets }, request);
    if (taken.kind !== 'run') throw new Error(`expected to run, got ${taken.kind}`);
    // Its lease ran out and a repeat took the key: the key's token is the repeat's now.
    await setKeyRow('overtaken-1', { lockedUntil: new Date(Date.now() + 90_000) });
    const before = await keyRow('overtaken-1');

    const id = uniqueId('tpl');
    await expect(
      createTemplate(taken.claim.db, owner, { id }, api.deps.documentLimits),
    ).rejects.toMatchObject({ type: 'idempotency_in_progress', status: 409 });
    expect(await api.db.db.select().from(templates).where(eq(templates.id, id))).toEqual([]);
    await keepAnswer(api.deps, taken.claim, { status: 201, headers: {}, body: Buffer.from('{}') });
    expect(await keyRow('overtaken-1')).toEqual(before);
  });
});

describe('after 24 hours', () => {
  const age = (key: string, hours: number) =>
    setKeyRow(key, { createdAt: sql`now() - ${hours} * interval '1 hour'` });

  it('a key is a new key: another request under it runs', async () => {
    const params = requiredParams();
    expect((await api.call('POST', '/v1/disputes', keyed('old-1', { json: params }))).status).toBe(201);
    await age('old-1', 24.01);
    const next = requiredParams();
    const answer = await api.call('POST', '/v1/disputes', keyed('old-1', { json: next }));
    expect(answer.status, answer.text).toBe(201);
    expect(await storedDisputes(api, tenant.org, String(next.id))).toBe(1);
  });

  it('the sweep deletes the keys kept longer, in batches, and keeps the others', async () => {
    const keys = ['sweep-a', 'sweep-b', 'sweep-c', 'sweep-d'];
    for (const key of keys) {
      const answer = await api.call('POST', '/v1/templates', keyed(key, { json: { id: uniqueId('tpl') } }));
      expect(answer.status).toBe(201);
    }
    await age('sweep-a', 25);
    await age('sweep-b', 24.01);
    await age('sweep-c', 24.01);
    await age('sweep-d', 23.9);

    expect(await sweepIdempotencyKeys(api.db.db)).toBe(3);
    const left = async () =>
      (await api.db.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((row) => row.key);
    expect(await left()).toContain('sweep-d');
    for (const key of ['sweep-a', 'sweep-b', 'sweep-c']) expect(await left()).not.toContain(key);

    await age('sweep-d', 30);
    await age('running-1', 30);
    expect(await sweepIdempotencyKeys(api.db.db, 1)).toBe(2);
    expect(await sweepIdempotencyKeys(api.db.db, 1)).toBe(0);
  });

  it('the deadline worker runs the sweep on its schedule, the first time as it starts', async () => {
    await age('lost-1', 25);
    sweeper = await startWorkers(api.engine, ['deadline']);
    await expect.poll(() => keyRow('lost-1'), { timeout: 10_000 }).toBeUndefined();
    expect(await keyRow('taken-1')).toBeDefined();
  });
});
