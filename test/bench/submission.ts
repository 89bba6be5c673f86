import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { secretsFor } from '../../src/composition.js';
import { loadConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { disputes, templates } from '../../src/db/schema/index.js';
import { defaultRenderThreads, renderPool } from '../../src/documents/render-pool.js';
import { buildEvidenceDocument } from '../../src/domain/evidence-document.js';
import { sweepDeadlines } from '../../src/features/disputes/deadline-sweep.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { openQueues } from '../../src/jobs/catalog.js';
import { createQueueRemovalDispatcher } from '../../src/jobs/removal-dispatcher.js';
import { createQueueSubmitter } from '../../src/jobs/submitter.js';
import { startWorkers } from '../../src/jobs/workers/engine.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { redisAt } from '../../src/redis-connection.js';
import { bareDispute } from '../helpers/evidence-documents.js';
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

/**
 * Submission path: queued disputes all due now, put on the queue by the deadline sweep, then submitted by
 * the submission worker (each `submitQueued` job re-reads its dispute, records the attempt, renders and
 * stores its response document on the render threads, calls the mock adapter at zero latency and records
 * the outcome with its events; jobs running together share their statements), against a bare BullMQ
 * worker doing no work on the same number of jobs. Same Redis, same process, same concurrency (the
 * service's default SUBMISSION_CONCURRENCY). Target: >= 0.3 of the bare worker's jobs/s.
 *
 * Each dispute's document is one page (the summary and one field), under half a millisecond of CPU on a
 * render thread (the document engine); the threads are started before the clock starts.
 *
 * Each side is timed alike: from starting a worker (the service's start syncs its job schedulers, as a
 * worker process does) until it has completed a round's jobs and closed. The two alternate, `rounds`
 * rounds each, and each rate is of all its rounds: one bare round of 100 jobs lasts 30 ms, and alone it
 * moved the `--quick` ratio between 0.07 and 0.13 from run to run.
 *
 * Both sides measure a process that has worked before: each first runs `warmUp` jobs of its own, with a
 * worker started and closed for them, and the clock then times a new worker over the measured jobs. A
 * cold process spends its first 200 ms opening Postgres connections and compiling code, which in a
 * 100-dispute run was half the time and no submission's cost (docs/contributing.md, "Response documents:
 * figures and profiles").
 */

/** Jobs a round, on each side; the rates are of all the rounds together. */
const count = quick ? 100 : 2_000;
const rounds = quick ? 5 : 3;
const warmUp = 50;
/** A round whose jobs stop completing for this long fails the bench rather than hang it. */
const stallMs = 30_000;
const target = 0.3;

await runBench(async () => {
  const config = loadConfig({ DATABASE_URL: 'postgres://unused', REDIS_URL: redisUrl });
  const concurrency = config.SUBMISSION_CONCURRENCY;
  console.log(
    `submission bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${count} disputes, ` +
      `${rounds} alternating rounds, concurrency ${concurrency}`,
  );
  await ensurePostgres();
  await ensureRedis();
  const prefix = `rebuttal_bench_${randomBytes(4).toString('hex')}`;
  onCleanup(() => dropKeys(redisUrl, prefix));

  // The baseline: a worker that does nothing, on jobs added beforehand.
  const bare = new Queue('bare', { connection: new Redis(redisUrl), prefix });
  onCleanup(() => bare.close());
  const runBare = async (jobs: number) => {
    await bare.addBulk(Array.from({ length: jobs }, (_, n) => ({ name: 'noop', data: { n } })));
    return timed(
      () =>
        new Promise<void>((resolve) => {
          let done = 0;
          const worker = new Worker('bare', async () => undefined, {
            connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
            prefix,
            concurrency,
          });
          worker.on('completed', () => {
            done += 1;
            if (done === jobs) void worker.close().then(resolve);
          });
        }),
    );
  };
  await runBare(warmUp);

  // The service: queued disputes due now, in their own database.
  const database = await createBenchDatabase();
  const connection = connectDatabase(database.url, { max: 10 });
  onCleanup(() => connection.close());
  const { db } = connection;
  await runMigrations(db);
  const org = await createOrganisation(db, { name: 'Bench Ltd' });
  await db.insert(templates).values({
    orgId: org.org,
    livemode: false,
    id: 'bench',
    name: 'Bench',
    fields: [{ key: 'order_id', type: 'text', required: true, description: null }],
  });
  const dueBy = new Date(Date.now() + 30 * 86_400_000);
  let inserted = 0;
  const insertQueued = async (total: number) => {
    for (let done = 0; done < total; done += 1000) {
      await db.insert(disputes).values(
        Array.from({ length: Math.min(1000, total - done) }, (_, n) => ({
          orgId: org.org,
          livemode: false,
          id: `dp_bench_${inserted + n}`,
          state: 'queued' as const,
          reason: 'fraudulent',
          source: 'mock',
          charge: `ch_bench_${inserted + n}`,
          dueBy,
          submitAt: new Date(Date.now() - 1000),
          template: 'bench',
          fields: { order_id: `A-${inserted + n}` },
        })),
      );
      inserted += Math.min(1000, total - done);
    }
  };
  const logger = pino({ level: 'warn' });
  const queues = openQueues({ redis: redisAt(redisUrl), prefix });
  onCleanup(() => queues.close());
  const mock = new MockAdapter();
  const engine = {
    db,
    listen: connection.listen,
    queues,
    adapters: createAdapterRegistry({ mock }),
    ...secretsFor('bench-app-secret-of-at-least-32-characters', config),
    logger,
    config: {
      ...config,
      DATABASE_URL: database.url,
      QUEUE_PREFIX: prefix,
      DEADLINE_SWEEP_SECONDS: 3600,
    },
  };
  const submitter = createQueueSubmitter({ db, queues, logger, waitMs: 0 });
  const removals = createQueueRemovalDispatcher({ queues, logger });
  /** Queues `total` disputes due now and puts them on the queue with the deadline sweep. */
  const queueDisputes = async (total: number) => {
    await insertQueued(total);
    const swept = await sweepDeadlines({
      db,
      submitter,
      removals,
      dueSoonMs: 0,
      lookaheadMs: 0,
      unattendedAfterMs: 60_000,
    });
    if (swept.queued !== total) throw new Error(`the sweep enqueued ${swept.queued} of ${total}`);
  };
  /**
   * Starts the submission worker and times it until it has completed `jobs` jobs and is closed, as the
   * bare worker is timed; then checks that every queued dispute was submitted.
   */
  const submitAll = async (jobs: number) => {
    const seconds = await timed(async () => {
      const running = await startWorkers(engine, ['submission']);
      try {
        // Listening once startWorkers has answered is in time: a job takes round trips to complete.
        let done = 0;
        let stalled: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve, reject) => {
          const patience = () => {
            clearTimeout(stalled);
            stalled = setTimeout(
              () => reject(new Error(`${done} of ${jobs} jobs completed, then none for ${stallMs} ms`)),
              stallMs,
            );
          };
          patience();
          for (const worker of running.workers) {
            worker.on('completed', () => {
              done += 1;
              patience();
              if (done === jobs) resolve();
            });
            worker.on('failed', (job, error) => reject(new Error(`job ${job?.id} failed: ${error.message}`)));
          }
        }).finally(() => clearTimeout(stalled));
      } finally {
        await running.close(1000);
      }
    });
    const [row] = await connection.sql<{ n: number }[]>`
      select count(*)::int as n from disputes where state = 'submitted'`;
    if (row?.n !== inserted) throw new Error(`${row?.n} of ${inserted} disputes were submitted`);
    return seconds;
  };

  // The render threads started, their fonts read and their code compiled before the clock starts, as in
  // a process that has rendered before: a thread's start (about a second when run from source) and its
  // first documents (several times slower than the next) are not a submission's cost. 30 documents a
  // thread, as the documents bench warms its pool.
  const warmDocument = buildEvidenceDocument({
    dispute: bareDispute(),
    template: null,
    generatedAt: new Date(),
  });
  await Promise.all(
    Array.from({ length: 30 * defaultRenderThreads() }, () => renderPool().render(warmDocument, 'warm-up')),
  );
  await queueDisputes(warmUp);
  await submitAll(warmUp);
  // Alternating rounds, so that whatever else the machine does weighs on both sides alike.
  let bareSeconds = 0;
  let ourSeconds = 0;
  for (let round = 0; round < rounds; round++) {
    bareSeconds += await runBare(count);
    await queueDisputes(count);
    ourSeconds += await submitAll(count);
  }
  if (mock.accepted.size !== inserted || mock.calls !== inserted) {
    throw new Error(
      `the processor saw ${mock.calls} calls and accepted ${mock.accepted.size}; expected ${inserted}`,
    );
  }
  const measured = rounds * count;
  const bareRate = measured / bareSeconds;
  const ourRate = measured / ourSeconds;
  console.log(
    `bare BullMQ worker           ${bareRate.toFixed(0).padStart(7)} jobs/s       (${measured} in ${bareSeconds.toFixed(2)} s)`,
  );
  console.log(
    `queued disputes submitted    ${ourRate.toFixed(0).padStart(7)} disputes/s   (${measured} in ${ourSeconds.toFixed(2)} s)`,
  );
  const ratio = ourRate / bareRate;
  console.log(`ratio ${ratio.toFixed(3)} (target >= ${target})`);
  console.log(resultLine('submission', ourRate, 'disputes/s', ratio, target));
});
