import { count } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/client.js';
import { submissions, webhookDeliveries } from '../db/schema/index.js';
import { submissionStatuses } from '../db/schema/submissions.js';
import { deliveryStatuses } from '../db/schema/webhooks.js';
import { type Collector, readAtMostEvery } from './collectors.js';

/**
 * Outcomes as Postgres records them, read at scrape time: the rows are the truth whichever process did the
 * work, and they outlive restarts. Each is one `count(*) … group by` through drizzle's query builder (so
 * it runs on PGlite too), read at most every 30 s by default. They are the rows' current states, not
 * counters: `pending` moves on to an outcome, a redelivery moves `failed` back to `pending`, and deleting
 * an endpoint deletes its deliveries.
 */
const defaultTableCountMs = 30_000;

/** Submission attempts by processor (the adapter that sent them) and status. */
export function submissionOutcomes(registry: Registry, db: Db, everyMs = defaultTableCountMs): Collector {
  const gauge = new Gauge({
    name: 'rebuttal_submissions',
    help: 'Submission attempts recorded in Postgres, by processor and outcome (pending, succeeded, failed).',
    labelNames: ['processor', 'outcome'],
    registers: [registry],
  });
  return readAtMostEvery(everyMs, {
    name: 'submissions',
    async read() {
      const rows = await db
        .select({ processor: submissions.adapter, outcome: submissions.status, count: count() })
        .from(submissions)
        .groupBy(submissions.adapter, submissions.status);
      return () => {
        gauge.reset();
        // Every outcome of a processor that has any, so a first failure shows as 0 → 1, not as a new series.
        for (const processor of new Set(rows.map((row) => row.processor))) {
          for (const outcome of submissionStatuses) gauge.set({ processor, outcome }, 0);
        }
        for (const row of rows) gauge.set({ processor: row.processor, outcome: row.outcome }, row.count);
      };
    },
    clear: () => gauge.reset(),
  });
}

/** Webhook deliveries (one event to one endpoint, however many attempts) by status. */
export function deliveryOutcomes(registry: Registry, db: Db, everyMs = defaultTableCountMs): Collector {
  const gauge = new Gauge({
    name: 'rebuttal_webhook_deliveries',
    help: 'Webhook deliveries recorded in Postgres, by outcome (pending, succeeded, failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  return readAtMostEvery(everyMs, {
    name: 'webhook_deliveries',
    async read() {
      const rows = await db
        .select({ outcome: webhookDeliveries.status, count: count() })
        .from(webhookDeliveries)
        .groupBy(webhookDeliveries.status);
      return () => {
        for (const outcome of deliveryStatuses) gauge.set({ outcome }, 0);
        for (const row of rows) gauge.set({ outcome: row.outcome }, row.count);
      };
    },
    clear: () => gauge.reset(),
  });
}
