import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectedAccounts,
  idempotencyKeys,
  personalDataRequests,
  webhookEndpoints,
} from '../../src/db/schema/index.js';
import { carryOutRemoval, requestRemoval } from '../../src/features/personal-data/removal.js';
import { retrievePersonalData } from '../../src/features/personal-data/retrieval.js';
import { resealAll } from '../../src/features/secrets/reseal.js';
import { rowName, sealedAt } from '../../src/features/secrets/sealed-columns.js';
import { SecretBox } from '../../src/secrets.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { sealedTheOldWay } from '../helpers/sealed.js';

/**
 * Replacing APP_SECRET (docs/operations.md "On-call recipes"): the service sealed values under A, some in the
 * format from before values were bound to their row; the operator sets APP_SECRET=B with
 * APP_SECRET_PREVIOUS=A, runs `secrets reseal`, and then everything opens under B alone.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [], env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => {
  await api.close();
});

const secretA = () => api.config.APP_SECRET ?? '';
const secretB = 'the-next-app-secret-of-at-least-32-characters';
const reseal = (env: Record<string, string>) =>
  runCli(['secrets', 'reseal', '--batch', '2', '--json'], { DATABASE_URL: api.db.url, ...env });
const countsOf = (stdout: string) =>
  Object.fromEntries(
    (JSON.parse(stdout) as { table: string; column: string }[]).map(({ table, column, ...rest }) => [
      `${table}.${column}`,
      rest,
    ]),
  );

describe('npm run cli -- secrets reseal', () => {
  it('seals every value again under the new APP_SECRET, once; afterwards they open without the previous one', async () => {
    const org = await api.createOrg();
    const endpoints: { id: string; secret: string }[] = [];
    for (let made = 0; made < 3; made++) {
      // Under an Idempotency-Key: its kept answer, which carries the secret, is sealed too.
      const response = await api.call('POST', '/v1/webhook_endpoints', {
        key: org.test_key,
        json: { url: 'https://hooks.example.com/rebuttal' },
        headers: { 'idempotency-key': `reseal-${made}` },
      });
      expect(response.status, response.text).toBe(201);
      endpoints.push(response.body as { id: string; secret: string });
    }
    const retrieved = await api.call('POST', '/v1/personal-data/retrieve', {
      key: org.test_key,
      json: { email: 'ada@example.com', name: 'Ada Lovelace', notification_email: 'dpo@shop.example' },
    });
    expect(retrieved.status).toBe(200);
    const request = (retrieved.body as { id: string }).id;
    // Credentials stored before values were bound to their row.
    const [account] = await api.db.db
      .insert(connectedAccounts)
      .values({
        orgId: org.org,
        livemode: false,
        id: 'old',
        processor: 'mock',
        credentials: sealedTheOldWay(secretA(), '{"secret_key":"sk_old"}'),
      })
      .returning();

    const first = await reseal({ APP_SECRET: secretB, APP_SECRET_PREVIOUS: secretA() });
    expect(first.code, first.stderr).toBe(0);
    expect(countsOf(first.stdout)).toEqual({
      'webhook_endpoints.secret': { resealed: 3, current: 0, unreadable: 0 },
      'webhook_endpoints.previous_secret': { resealed: 0, current: 0, unreadable: 0 },
      'connected_accounts.credentials': { resealed: 1, current: 0, unreadable: 0 },
      'personal_data_requests.notification_email': { resealed: 1, current: 0, unreadable: 0 },
      'personal_data_requests.subject': { resealed: 0, current: 0, unreadable: 0 },
      'personal_data_requests.export': { resealed: 1, current: 0, unreadable: 0 },
      'idempotency_keys.body': { resealed: 3, current: 0, unreadable: 0 },
    });
    const second = await reseal({ APP_SECRET: secretB, APP_SECRET_PREVIOUS: secretA() });
    expect(second.code, second.stderr).toBe(0);
    expect(Object.values(countsOf(second.stdout))).toEqual([
      { resealed: 0, current: 3, unreadable: 0 },
      { resealed: 0, current: 0, unreadable: 0 },
      { resealed: 0, current: 1, unreadable: 0 },
      { resealed: 0, current: 1, unreadable: 0 },
      { resealed: 0, current: 0, unreadable: 0 },
      { resealed: 0, current: 1, unreadable: 0 },
      { resealed: 0, current: 3, unreadable: 0 },
    ]);

    const onlyB = new SecretBox(secretB);
    for (const endpoint of endpoints) {
      const [row] = await api.db.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpoint.id));
      expect(onlyB.open(row?.secret ?? '', sealedAt('webhookSecret', endpoint.id))).toBe(endpoint.secret);
    }
    for (const [made, endpoint] of endpoints.entries()) {
      const key = `reseal-${made}`;
      const [kept] = await api.db.db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.orgId, org.org), eq(idempotencyKeys.key, key)));
      const at = sealedAt('idempotentAnswer', rowName([org.org, false, key]));
      expect(JSON.parse(onlyB.open(kept?.body ?? '', at))).toMatchObject({ secret: endpoint.secret });
    }
    const [stored] = await api.db.db
      .select()
      .from(connectedAccounts)
      .where(eq(connectedAccounts.uid, account?.uid ?? ''));
    expect(onlyB.open(stored?.credentials ?? '', sealedAt('accountCredentials', stored?.uid ?? ''))).toBe(
      '{"secret_key":"sk_old"}',
    );
    // The operator's view, in another process, with APP_SECRET_PREVIOUS gone.
    const listed = await runCli(['privacy', 'list', '--org', org.org, '--json'], {
      DATABASE_URL: api.db.url,
      APP_SECRET: secretB,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: request, notification_email: 'dpo@shop.example', export: 'available' }),
    ]);
    const [requestRow] = await api.db.db
      .select()
      .from(personalDataRequests)
      .where(eq(personalDataRequests.id, request));
    expect(
      JSON.parse(onlyB.open(requestRow?.export ?? '', sealedAt('requestExport', request))),
    ).toMatchObject({
      notification_email: 'dpo@shop.example',
    });
  }, 90_000);

  it('leaves alone, counts and fails on a value that does not open here: one copied from another row', async () => {
    const org = await api.createOrg();
    const ids: string[] = [];
    for (let made = 0; made < 2; made++) {
      const response = await api.call('POST', '/v1/webhook_endpoints', {
        key: org.test_key,
        json: { url: 'https://hooks.example.com/rebuttal' },
      });
      ids.push((response.body as { id: string }).id);
    }
    const [from, to] = ids as [string, string];
    const [source] = await api.db.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, from));
    await api.db.db
      .update(webhookEndpoints)
      .set({ secret: source?.secret ?? '' })
      .where(eq(webhookEndpoints.id, to));
    // Both secrets, so that only the copied value fails, whatever the first test left sealed under B.
    const box = new SecretBox(secretB, secretA());
    expect(() => box.open(source?.secret ?? '', sealedAt('webhookSecret', to))).toThrow('does not open');
    const before = await api.db.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, to));

    const counts = await resealAll(api.db.db, box, 1);
    expect(counts.find((count) => count.column === 'secret')).toMatchObject({ unreadable: 1 });
    expect(await api.db.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, to))).toEqual(
      before,
    );

    const { code, stderr } = await reseal({ APP_SECRET: secretB, APP_SECRET_PREVIOUS: secretA() });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'error: 1 sealed value(s) open under neither APP_SECRET nor APP_SECRET_PREVIOUS; they were left as they are',
    );
  });
});

describe('personal data across a change of APP_SECRET', () => {
  it("removes the person's exports made under the previous APP_SECRET while it is set", async () => {
    const org = await api.createOrg();
    const tenant = { orgId: org.org, livemode: false };
    const person = {
      email: 'grace@example.com',
      name: 'Grace Hopper',
      notification_email: 'dpo@shop.example',
    };
    const before = await retrievePersonalData(
      { db: api.db.db, secrets: new SecretBox(secretA()) },
      tenant,
      person,
    );
    expect(before.export).not.toBeNull();

    const deps = { db: api.db.db, secrets: new SecretBox(secretB, secretA()) };
    const removal = await requestRemoval({ ...deps, removals: { dispatch: async () => {} } }, tenant, person);
    expect(await carryOutRemoval(deps, removal.id)).toMatchObject({
      status: 'removed',
      summary: { exports: 1 },
    });
    const [after] = await api.db.db
      .select({ export: personalDataRequests.export })
      .from(personalDataRequests)
      .where(eq(personalDataRequests.id, before.id));
    expect(after).toEqual({ export: null });
  });
});
