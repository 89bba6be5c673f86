import { randomBytes } from 'node:crypto';
import { createServer, Agent as HttpAgent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { got } from 'got';
import { pino } from 'pino';
import { secretsFor } from '../../src/composition.js';
import { loadConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { events } from '../../src/db/schema/index.js';
import { toDisputeObject } from '../../src/domain/disputes.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { createEndpoint } from '../../src/features/webhooks/endpoints.js';
import { newId } from '../../src/ids.js';
import { openQueues } from '../../src/jobs/catalog.js';
import { startWorkers } from '../../src/jobs/workers/engine.js';
import { seededRandom } from '../../src/processors/mock/random.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { redisAt } from '../../src/redis-connection.js';
import { dropKeys, ensurePostgres, ensureRedis, redisUrl } from '../helpers/services.js';
import {
  createBenchDatabase,
  describeMachine,
  onCleanup,
  quick,
  resultLine,
  runBench,
  timed,
} from './lib/harness.js';
import { benchDispute } from './lib/seed.js';

/**
 * Webhook path: events already in the outbox, woken by the commit notification, relayed into one delivery
 * each, and delivered by the webhook worker (load, sign, POST, record the attempt and the outcome), against
 * a bare got POST loop sending bodies of the same size to the same receiver at the same concurrency (the
 * service's default WEBHOOK_CONCURRENCY). Same process, same receiver (an HTTP server on loopback answering
 * 200 at once), same keep-alive. Target: >= 0.5 of the bare loop's events/s.
 */

const count = quick ? 600 : 5_000;
const target = 0.5;

await runBench(async () => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused',
    REDIS_URL: redisUrl,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const concurrency = config.WEBHOOK_CONCURRENCY;
  console.log(
    `webhooks bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${count} events, concurrency ${concurrency}`,
  );
  await ensurePostgres();
  await ensureRedis();

  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise((resolve) => {
        receiver.close(() => resolve());
        receiver.closeAllConnections();
      }),
  );
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  // The baseline: got POSTs of a webhook-sized body, `concurrency` at a time, over kept-alive connections.
  const body = JSON.stringify({
    id: newId('webhookDelivery'),
    type: 'dispute.created',
    object: 'webhook',
    livemode: false,
    dispute: 'dp_bench',
    charge: 'ch_bench',
    account_id: null,
  });
  const agent = new HttpAgent({ keepAlive: true });
  onCleanup(async () => agent.destroy());
  const post = async () => {
    const response = await got.post(url, {
      body,
      headers: { 'content-type': 'application/json' },
      agent: { http: agent },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      timeout: { request: 10_000 },
    });
    if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
  };
  const postAll = async (total: number) => {
    let next = 0;
    const loop = async () => {
      for (; next < total; next += 1) await post();
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
  };
  // Warmed up first, so the baseline is got at full speed rather than got being compiled.
  await postAll(Math.min(1000, count));
  const bareSeconds = await timed(() => postAll(count));
  const bareRate = count / bareSeconds;
  console.log(
    `bare got POST loop           ${bareRate.toFixed(0).padStart(7)} posts/s    (${count} in ${bareSeconds.toFixed(2)} s)`,
  );

  // The service: one endpoint, the webhook worker and the relay's listener running, then events written
  // to the outbox in bulk and announced with one notification, as a mirror run's commit would.
  const database = await createBenchDatabase();
  const connection = connectDatabase(database.url, { max: 10 });
  onCleanup(() => connection.close());
  const { db } = connection;
  await runMigrations(db);
  const org = await createOrganisation(db, { name: 'Bench Ltd' });
  const { secrets, links } = secretsFor('bench-app-secret-of-at-least-32-characters', config);
  const tenant = { orgId: org.org, livemode: false, apiVersion: '2021-09-15' as const };
  await createEndpoint({ db, secrets, webhookEndpointsMax: config.WEBHOOK_ENDPOINTS_MAX }, tenant, {
    url,
    events: ['*'],
  });
  const prefix = `rebuttal_bench_${randomBytes(4).toString('hex')}`;
  onCleanup(() => dropKeys(redisUrl, prefix));
  const queues = openQueues({ redis: redisAt(redisUrl), prefix });
  onCleanup(() => queues.close());
  const engine = {
    db,
    listen: connection.listen,
    queues,
    adapters: createAdapterRegistry(),
    secrets,
    links,
    logger: pino({ level: 'warn' }),
    config: { ...config, DATABASE_URL: database.url, QUEUE_PREFIX: prefix },
  };
  // The webhook worker with its listener, as a worker process runs it.
  const running = await startWorkers(engine, ['webhook']);
  onCleanup(() => running.close(1000));

  const random = seededRandom(7);
  let written = 0;
  let delivered = 0;
  const writeEvents = async (total: number) => {
    for (let start = 0; start < total; start += 1000) {
      await db.insert(events).values(
        Array.from({ length: Math.min(1000, total - start) }, () => ({
          id: newId('event'),
          orgId: org.org,
          livemode: false,
          type: 'dispute.updated',
          data: toDisputeObject(benchDispute(random, written++, Date.now()), null),
        })),
      );
    }
  };
  const deliverAll = async () => {
    const arrived = received + (written - delivered);
    await connection.sql`select pg_notify('rebuttal_events', '')`;
    await new Promise<void>((resolve) => {
      const check = () => (received >= arrived ? resolve() : setTimeout(check, 5));
      check();
    });
    // The last arrivals' records land a moment after their answers.
    for (;;) {
      const [row] = await connection.sql<{ n: number }[]>`
        select count(*)::int as n from webhook_deliveries where status = 'succeeded'`;
      if ((row?.n ?? 0) >= written) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    delivered = written;
  };
  // Warmed up like the baseline; the measured events are in the outbox before the clock starts.
  await writeEvents(Math.min(1000, count));
  await deliverAll();
  await writeEvents(count);
  received = 0;
  const ourSeconds = await timed(deliverAll);
  const [failed] = await connection.sql<{ n: number }[]>`
    select count(*)::int as n from webhook_attempts where status is distinct from 200`;
  if (received !== count || (failed?.n ?? 0) > 0) {
    throw new Error(`the receiver got ${received} of ${count} webhooks; ${failed?.n} attempts failed`);
  }
  const ourRate = count / ourSeconds;
  console.log(
    `events relayed and delivered ${ourRate.toFixed(0).padStart(7)} events/s   (${count} in ${ourSeconds.toFixed(2)} s)`,
  );
  const ratio = ourRate / bareRate;
  console.log(`ratio ${ratio.toFixed(3)} (target >= ${target})`);
  console.log(resultLine('webhooks', ourRate, 'events/s', ratio, target));
});
