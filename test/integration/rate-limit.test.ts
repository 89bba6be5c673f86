import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordFile } from '../../src/features/files/records.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { RateLimiter } from '../../src/rate-limiter.js';
import type { RateLimitSettings, RateLimits } from '../../src/rate-limits.js';
import { connectRedis } from '../../src/redis.js';
import { type RedisClient, redisAt } from '../../src/redis-connection.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  newTenant,
  requiredParams,
  submittableDispute,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';
import { sampleJpeg } from '../helpers/evidence-files.js';
import { jpegOfSize, multipart, multipartType } from '../helpers/files.js';
import {
  limitsOver,
  rateLimited,
  readyRedis,
  requestLimit,
  serveLimited,
  silentLogger,
  statuses,
} from '../helpers/rate-limits.js';
import { testRedisPrefix } from '../helpers/services.js';

let api: TestApi;
let redis: RedisClient;
const servers: Server[] = [];
const logger = silentLogger;

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  redis = await readyRedis();
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  redis.disconnect();
  await api.close();
});

const limitsWith = (settings: Partial<RateLimitSettings>, connection: RedisClient = redis) =>
  limitsOver(api, connection, settings);
const serve = (rateLimits: RateLimits) => serveLimited(api, rateLimits, servers);

describe('rate limit per API key (docs/api.md, "Limits")', () => {
  it('allows bursts of twice the rate, then answers 429 rate_limited with Retry-After, per key', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_PER_SECOND: 5 }));
    const [busy, quiet] = [await api.createOrg(), await api.createOrg()];
    const list = (key: string) => call('/v1/disputes', { key });

    expect(await statuses(10, () => list(busy.test_key))).toEqual(Array(10).fill(200));
    let limited: Response | undefined;
    for (let index = 0; index < 20 && !limited; index++) {
      const response = await list(busy.test_key);
      if (response.status === 429) limited = response;
    }
    if (!limited) throw new Error('no request was limited after a burst of 10 and 20 more at 5 a second');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toEqual(rateLimited('/v1/disputes', requestLimit(5)));

    // Another organisation's key, and the same organisation's live key, have buckets of their own.
    expect((await list(quiet.test_key)).status).toBe(200);
    expect((await list(busy.live_key)).status).toBe(200);

    // After the time Retry-After names, a token has come back.
    await new Promise((resolve) => setTimeout(resolve, Number(limited.headers.get('retry-after')) * 1000));
    expect((await list(busy.test_key)).status).toBe(200);
  });

  it('charges a large answer as many requests: a key listing big disputes is limited after far fewer calls', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_PER_SECOND: 5, RATE_LIMIT_RESPONSE_KIB: 32 }));
    const [big, small] = [await api.createOrg(), await api.createOrg()];
    // 20 disputes of about 90 KiB of evidence each: a page of them is about 1.8 MB of JSON.
    const fields = Object.fromEntries(
      Array.from({ length: 9 }, (_, index) => [`note_${index}`, 'x'.repeat(10_000)]),
    );
    for (const key of [big.test_key, small.test_key]) {
      for (let index = 0; index < (key === big.test_key ? 20 : 1); index++) {
        const created = await api.call('POST', '/v1/disputes', {
          key,
          json: requiredParams(key === big.test_key ? { fields } : {}),
        });
        expect(created.status, created.text).toBe(201);
      }
    }
    const page = (key: string) => call('/v1/disputes?limit=20', { key });

    const bigAnswers = await statuses(10, () => page(big.test_key));
    const smallAnswers = await statuses(8, () => page(small.test_key));
    // The first big page (1 + about 56 for its size) leaves the key in debt; small pages cost one each.
    expect(bigAnswers).toEqual([200, ...Array(9).fill(429)]);
    expect(smallAnswers).toEqual(Array(8).fill(200));

    const limited = await page(big.test_key);
    expect(await limited.json()).toEqual(rateLimited('/v1/disputes', requestLimit(5)));
    // Retry-After says when the debt is repaid: about 56 tokens at 5 a second, past a whole burst.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(2);
    // The other key, within its burst of 10, is unaffected.
    expect((await page(small.test_key)).status).toBe(200);
  });

  it('charges an upload as many requests as its file has full 32 KiB: a key uploading big files is limited sooner', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_PER_SECOND: 5, RATE_LIMIT_RESPONSE_KIB: 32 }));
    const uploadFile = (key: string, bytes: Buffer) =>
      call('/v1/files', {
        key,
        method: 'POST',
        raw: { type: multipartType, body: multipart([{ name: 'file', filename: 'f.jpg', body: bytes }]) },
      });
    const [big, small] = [(await api.createOrg()).test_key, (await api.createOrg()).test_key];
    // 1 MB is 30 full 32 KiB: the first upload leaves the key 21 tokens in debt, beyond its burst of 10.
    const megabyte = jpegOfSize(sampleJpeg(), 1_000_000);
    expect((await uploadFile(big, megabyte)).status).toBe(201);
    const limited = await uploadFile(big, megabyte);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual(rateLimited('/v1/files', requestLimit(5)));
    // Small files cost one each: the other key uploads its whole burst.
    const tiny = sampleJpeg('Tiny', 100, 60);
    expect(await statuses(10, () => uploadFile(small, tiny))).toEqual(Array(10).fill(201));
  });

  it('charges a preview by the PDF it rendered, in its JSON form too', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_PER_SECOND: 5, RATE_LIMIT_RESPONSE_KIB: 32 }));
    const previewOf = (tenant: Tenant, id: string) =>
      call(`/v1/disputes/${id}/preview?format=json`, { key: tenant.key });
    const [heavy, light] = [await newTenant(api), await newTenant(api)];
    const withScan = (await submittableDispute(api, heavy)).dispute.id;
    const scan = await api.db.db.transaction((tx) =>
      recordFile(
        tx,
        postgresFileStorage(api.db.db),
        { orgId: heavy.org, livemode: false },
        {
          purpose: 'dispute_evidence',
          filename: 'scan.jpg',
          type: 'jpg',
          pages: null,
          bytes: jpegOfSize(sampleJpeg(), 1_000_000),
        },
      ),
    );
    await writeStored(api, heavy, withScan, {
      evidenceFiles: [{ file: scan.id, category: 'receipt', description: null }],
    });
    // The document draws the 1 MB scan: about 30 full 32 KiB, far past the key's burst of 10.
    const first = await previewOf(heavy, withScan);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { bytes: number }).bytes).toBeGreaterThan(1_000_000);
    expect((await previewOf(heavy, withScan)).status).toBe(429);
    // A plain document costs one: the other key previews its whole burst.
    const plain = (await submittableDispute(api, light)).dispute.id;
    expect(await statuses(10, () => previewOf(light, plain))).toEqual(Array(10).fill(200));
  });

  it('charges a count by the disputes it counts: a key counting a large organisation is limited sooner', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_PER_SECOND: 5, RATE_LIMIT_RESPONSE_KIB: 32 }));
    const [large, small] = [await api.createOrg(), await api.createOrg()];
    // 40,000 disputes at 16 bytes each: a count costs 19 more than its small answer.
    await api.db.sql`
      insert into disputes (org_id, livemode, id, state, reason, source)
      select ${large.org}, false, 'dp_count_' || i, 'needs_response', 'fraudulent', 'api'
      from generate_series(1, 40000) as i`;
    const counted = (key: string) => call('/v1/disputes?limit=1&include[]=total_count', { key });

    const first = await counted(large.test_key);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ total_count: 40_000 });
    const limited = await counted(large.test_key);
    expect(await limited.json()).toEqual(rateLimited('/v1/disputes', requestLimit(5)));
    // Retry-After: about 10 tokens of debt at 5 a second.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
    // The same page without the count costs one; so does counting an organisation with no disputes.
    expect(await statuses(5, () => call('/v1/disputes?limit=1', { key: small.test_key }))).toEqual(
      Array(5).fill(200),
    );
    expect(await statuses(5, () => counted(small.test_key))).toEqual(Array(5).fill(200));
  });

  it('gives personal data requests and test disputes small budgets of their own, per key', async () => {
    const call = await serve(
      limitsWith({ RATE_LIMIT_PERSONAL_DATA_PER_MINUTE: 2, RATE_LIMIT_TEST_DISPUTES_PER_MINUTE: 3 }),
    );
    const [busy, other] = [await api.createOrg(), await api.createOrg()];
    const person = { email: 'ada@example.com', name: 'Ada Lovelace', notification_email: 'ops@example.com' };
    const retrieve = (key: string) =>
      call('/v1/personal-data/retrieve', { key, method: 'POST', json: person });
    const remove = (key: string) => call('/v1/personal-data/remove', { key, method: 'POST', json: person });
    const testDispute = (key: string) => call('/v1/test/disputes', { key, method: 'POST', json: {} });

    expect([(await retrieve(busy.test_key)).status, (await remove(busy.test_key)).status]).toEqual([
      200, 200,
    ]);
    const refused = await retrieve(busy.test_key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual(
      rateLimited('/v1/personal-data/retrieve', 'Too many personal data requests: at most 2 a minute.'),
    );
    expect((await remove(busy.test_key)).status).toBe(429);

    // Test disputes have a budget apart from personal data's, and the key's other calls go on.
    expect(await statuses(4, () => testDispute(busy.test_key))).toEqual([201, 201, 201, 429]);
    const noMore = await testDispute(busy.test_key);
    expect(await noMore.json()).toEqual(
      rateLimited('/v1/test/disputes', 'Too many test disputes: at most 3 a minute.'),
    );
    expect((await call('/v1/disputes', { key: busy.test_key })).status).toBe(200);

    // Another organisation's key, and the same organisation's live key, have budgets of their own.
    expect((await retrieve(other.test_key)).status).toBe(200);
    expect((await testDispute(other.test_key)).status).toBe(201);
    expect((await retrieve(busy.live_key)).status).toBe(200);
  });

  it('lets requests through when Redis does not answer, rather than refusing merchants', async () => {
    const unreachable = connectRedis(redisAt('redis://127.0.0.1:1'), logger);
    try {
      const call = await serve(limitsWith({ RATE_LIMIT_PER_SECOND: 1 }, unreachable));
      const org = await api.createOrg();
      expect(await statuses(5, () => call('/v1/disputes', { key: org.test_key }))).toEqual(
        Array(5).fill(200),
      );
    } finally {
      unreachable.disconnect();
    }
  });

  it('spends a leased tenth of a second of tokens locally: one Redis call per lease, never past the limit', async () => {
    const prefix = testRedisPrefix();
    const here = new RateLimiter(redis, prefix, 100, logger);
    const there = new RateLimiter(redis, prefix, 100, logger);
    const leased = (limiter: RateLimiter) =>
      (limiter as unknown as { leases: Map<string, { tokens: number }> }).leases.get('org_x:test')?.tokens;

    expect(await here.take('org_x:test')).toEqual({ allowed: true });
    expect(leased(here)).toBe(9);
    // Two processes on one key share one bucket of 200: together they are granted 200 at most.
    let allowed = 0;
    for (let index = 0; index < 150; index++) {
      for (const limiter of [here, there]) if ((await limiter.take('org_x:test')).allowed) allowed += 1;
    }
    expect(allowed).toBeGreaterThanOrEqual(199);
    // Refill while the loop ran (100 a second) is the only allowance past the burst.
    expect(allowed).toBeLessThanOrEqual(200 + 100);
  });

  it('charges what a request cost from the lease first, then from the shared bucket into debt', async () => {
    const prefix = testRedisPrefix();
    const here = new RateLimiter(redis, prefix, 100, logger);
    const there = new RateLimiter(redis, prefix, 100, logger);
    expect(await here.take('org_z:test')).toEqual({ allowed: true });
    // 9 of the 500 come from this process's lease, 491 from the bucket's 190: 301 owed.
    await here.charge('org_z:test', 500);
    expect(Number(await redis.hget(`${prefix}:rate:org_z:test`, 'tokens'))).toBeLessThan(-290);
    // Every process sees the debt: no token until it is repaid, about 3 s at 100 a second.
    const refused = await there.take('org_z:test');
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
    expect(refused.allowed === false && refused.retryAfterSeconds).toBeGreaterThanOrEqual(3);
  });

  it('serves concurrent requests of one key from one lease at a time, not a lease each', async () => {
    const prefix = testRedisPrefix();
    const limiter = new RateLimiter(redis, prefix, 100, logger);
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.take('org_y:test')));
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    // 50 requests took about 50 tokens from the shared bucket of 200, not 50 leases of 10.
    const left = Number(await redis.hget(`${prefix}:rate:org_y:test`, 'tokens'));
    expect(left).toBeGreaterThanOrEqual(140);
  });
});

const authLimit = (count: number) =>
  `Too many refused API keys from this address: at most ${count} a minute.`;
const madeUpKey = () => `test_${randomBytes(32).toString('base64url')}`;
`test_${'A'.repeat(20)}${Math.random().toString(36).slice(2).padEnd(23, 'b').slice(0, 23)}`;

describe('refused API keys, per client address (docs/api.md, "Limits")', () => {
  it('answers 429 without asking Postgres once an address has used up its refused keys', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 5 }));
    const from = '203.0.113.7';
    expect(await statuses(5, () => call('/v1/disputes', { key: madeUpKey(), from }))).toEqual(
      Array(5).fill(401),
    );

    const unseen = await api.createOrg();
    // Every drizzle query reaches Postgres through the client's `unsafe`: counting its calls counts lookups.
    const queries = vi.spyOn(api.db.sql, 'unsafe');
    try {
      const refused = await call('/v1/disputes', { key: madeUpKey(), from });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('www-authenticate')).toBeNull();
      expect(await refused.json()).toEqual(rateLimited('/v1/disputes', authLimit(5)));
      // A right key this process has not resolved yet is a lookup too: refused alike, unasked.
      expect((await call('/v1/disputes', { key: unseen.test_key, from })).status).toBe(429);
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }

    // Another address is not limited: its right key works, and then, known, works from the first one too.
    const org = await api.createOrg();
    expect((await call('/v1/disputes', { key: org.test_key, from: '203.0.113.8' })).status).toBe(200);
    expect((await call('/v1/disputes', { key: org.test_key, from })).status).toBe(200);
  });

  it('counts IPv6 addresses by their /64', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 3 }));
    for (const from of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) {
      expect((await call('/v1/disputes', { key: madeUpKey(), from })).status).toBe(401);
    }
    expect((await call('/v1/disputes', { key: madeUpKey(), from: '2001:db8:1:2::4' })).status).toBe(429);
    expect((await call('/v1/disputes', { key: madeUpKey(), from: '2001:db8:1:3::1' })).status).toBe(401);
  });

  it('counts neither requests without credentials nor right keys', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 3 }));
    const from = '203.0.113.20';
    expect(await statuses(6, () => call('/v1/disputes', { from }))).toEqual(Array(6).fill(401));
    // Six organisations' keys, each a lookup: a right one gives its token back.
    for (let index = 0; index < 6; index++) {
      const org = await api.createOrg();
      expect((await call('/v1/disputes', { key: org.test_key, from })).status).toBe(200);
    }
    expect(await statuses(3, () => call('/v1/disputes', { key: madeUpKey(), from }))).toEqual([
      401, 401, 401,
    ]);
  });
  it('takes no token for a lookup that failed: an outage does not use up an address', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 3 }));
    const from = '203.0.113.40';
    // Postgres away: every lookup fails (the answer says so; the key was never refused).
    const lookups = vi.spyOn(api.deps.keys, 'resolve').mockRejectedValue(new Error('connection lost'));
    try {
      for (let index = 0; index < 6; index++) {
        expect((await call('/v1/disputes', { key: (await api.createOrg()).test_key, from })).status).not.toBe(
          429,
        );
      }
    } finally {
      lookups.mockRestore();
    }
    const org = await api.createOrg();
    expect((await call('/v1/disputes', { key: org.test_key, from })).status).toBe(200);
  });
});

describe('GET /readyz, per client address (docs/api.md, "Limits")', () => {
  it('answers 429 rate_limited past its limit, and other addresses are unaffected', async () => {
    const call = await serve(limitsWith({ RATE_LIMIT_READYZ_PER_SECOND: 2 }));
    const answers = await statuses(8, () => call('/readyz', { from: '203.0.113.30' }));
    expect(answers.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(answers).toContain(429);
    const refused = await call('/readyz', { from: '203.0.113.30' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual(
      rateLimited(
        '/readyz',
        'Too many readiness probes from this address: at most 2 a second, in bursts of up to 4.',
      ),
    );
    expect((await call('/readyz', { from: '203.0.113.31' })).status).toBe(200);
  });
});
