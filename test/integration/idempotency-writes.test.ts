import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../src/api/app.js';
import { idempotencyKeys } from '../../src/db/schema/index.js';
import { insertAlert } from '../helpers/alert-refunds.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Json,
  newTenant,
  requiredParams,
  submittableDispute,
  type Tenant,
  uniqueId,
} from '../helpers/disputes.js';
import { samplePng } from '../helpers/evidence-files.js';
import { multipart, multipartType } from '../helpers/files.js';
import { expectReplayOf, keyedBy } from '../helpers/idempotency.js';

/**
 * Every write endpoint under an Idempotency-Key (docs/api.md, "Idempotent requests"): its change marks the
 * key as having written, in the same transaction (src/db/first-write.ts), whichever way its feature
 * writes, and its answer is kept and replayed. A write endpoint missing from this table fails the test.
 */
let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

interface Write {
  method: 'POST' | 'PUT' | 'DELETE';
  /** The endpoint's path pattern, as app.ts declares it. */
  pattern: string;
  /** Makes what the write needs, and answers its path and body. */
  prepare(): Promise<{ path: string; json?: Json; upload?: Buffer }>;
}

const created = async (path: string, json: Json) => {
  const answer = await api.call('POST', path, { key: tenant.key, json });
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer.body;
};
const template = () => created('/v1/templates', { id: uniqueId('tpl') });
const endpoint = () => created('/v1/webhook_endpoints', { url: 'https://hooks.example.com/idem' });
const dispute = () => createTestDispute(api, tenant.key);
const person = { email: 'ada@example.com', name: 'Ada Lovelace', notification_email: 'dpo@shop.example' };
const png = () => multipart([{ name: 'file', filename: 'a.png', body: samplePng(uniqueId('png'), 20, 20) }]);

const writes: Write[] = [
  {
    method: 'POST',
    pattern: '/disputes',
    prepare: async () => ({ path: '/v1/disputes', json: requiredParams() }),
  },
  {
    method: 'PUT',
    pattern: '/disputes/:id',
    prepare: async () => ({ path: `/v1/disputes/${(await dispute()).id}`, json: { fields: { a: 'b' } } }),
  },
  {
    method: 'POST',
    pattern: '/disputes/:id',
    prepare: async () => ({ path: `/v1/disputes/${(await dispute()).id}`, json: { fields: { a: 'b' } } }),
  },
  {
    method: 'POST',
    pattern: '/disputes/:id/submit',
    prepare: async () => {
      const { dispute: submittable } = await submittableDispute(api, tenant);
      return { path: `/v1/disputes/${submittable.id}/submit`, json: { queue: true } };
    },
  },
  {
    method: 'POST',
    pattern: '/disputes/:id/accept',
    prepare: async () => ({ path: `/v1/disputes/${(await dispute()).id}/accept` }),
  },
  {
    method: 'POST',
    pattern: '/test/disputes',
    prepare: async () => ({ path: '/v1/test/disputes', json: {} }),
  },
  {
    method: 'POST',
    pattern: '/templates',
    prepare: async () => ({ path: '/v1/templates', json: { id: uniqueId('tpl') } }),
  },
  {
    method: 'PUT',
    pattern: '/templates/:id',
    prepare: async () => ({ path: `/v1/templates/${(await template()).id}`, json: { name: 'Renamed' } }),
  },
  {
    method: 'DELETE',
    pattern: '/templates/:id',
    prepare: async () => ({ path: `/v1/templates/${(await template()).id}` }),
  },
  {
    method: 'POST',
    pattern: '/webhook_endpoints',
    prepare: async () => ({ path: '/v1/webhook_endpoints', json: { url: 'https://hooks.example.com/a' } }),
  },
  {
    method: 'PUT',
    pattern: '/webhook_endpoints/:id',
    prepare: async () => ({
      path: `/v1/webhook_endpoints/${(await endpoint()).id}`,
      json: { enabled_events: ['dispute.created'] },
    }),
  },
  {
    method: 'DELETE',
    pattern: '/webhook_endpoints/:id',
    prepare: async () => ({ path: `/v1/webhook_endpoints/${(await endpoint()).id}` }),
  },
  {
    method: 'POST',
    pattern: '/webhook_endpoints/:id/test',
    prepare: async () => ({ path: `/v1/webhook_endpoints/${(await endpoint()).id}/test` }),
  },
  {
    method: 'POST',
    pattern: '/webhook_endpoints/:id/rotate_secret',
    prepare: async () => ({ path: `/v1/webhook_endpoints/${(await endpoint()).id}/rotate_secret` }),
  },
  {
    method: 'POST',
    pattern: '/events/:id/redeliver',
    prepare: async () => {
      const event = await created(`/v1/webhook_endpoints/${(await endpoint()).id}/test`, {});
      return { path: `/v1/events/${event.id}/redeliver` };
    },
  },
  {
    method: 'POST',
    pattern: '/personal-data/retrieve',
    prepare: async () => ({ path: '/v1/personal-data/retrieve', json: person }),
  },
  {
    method: 'POST',
    pattern: '/personal-data/remove',
    prepare: async () => ({ path: '/v1/personal-data/remove', json: person }),
  },
  { method: 'POST', pattern: '/files', prepare: async () => ({ path: '/v1/files', upload: png() }) },
  {
    method: 'DELETE',
    pattern: '/files/:id',
    prepare: async () => {
      const answer = await api.call('POST', '/v1/files', {
        key: tenant.key,
        raw: png(),
        headers: { 'content-type': multipartType },
      });
      return { path: `/v1/files/${answer.body.id}` };
    },
  },
  {
    method: 'POST',
    pattern: '/alerts/:id/refund',
    prepare: async () => ({ path: `/v1/alerts/${(await insertAlert(api.db.db, tenant.org)).id}/refund` }),
  },
];

describe('every write endpoint under an Idempotency-Key', () => {
  it('is in this table', () => {
    const declared = endpoints
      .filter((declaredEndpoint) => declaredEndpoint.method !== 'get')
      .map((declaredEndpoint) => `${declaredEndpoint.method.toUpperCase()} ${declaredEndpoint.path}`);
    expect(writes.map((write) => `${write.method} ${write.pattern}`).sort()).toEqual(declared.sort());
  });

  it.each(writes.map((write) => [`${write.method} ${write.pattern}`, write] as const))(
    '%s: marks its key as having written, keeps its answer, and replays it',
    async (_route, write) => {
      const { path, json, upload } = await write.prepare();
      const key = uniqueId('idem');
      const options = keyedBy(tenant)(
        key,
        upload ? { raw: upload, headers: { 'content-type': multipartType } } : { json: json ?? {} },
      );
      const first = await api.call(write.method, path, options);
      expect(first.status, first.text).toBeLessThan(300);
      const [row] = await api.db.db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.orgId, tenant.org), eq(idempotencyKeys.key, key)));
      expect(row).toMatchObject({ status: first.status, wroteAt: expect.any(Date), lockedUntil: null });
      expectReplayOf(await api.call(write.method, path, options), first);
    },
  );
});
