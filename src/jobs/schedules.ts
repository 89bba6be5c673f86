import { isDeepStrictEqual } from 'node:util';
import type { JobSchedulerJson } from 'bullmq';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { connectedAccounts } from '../db/schema/index.js';
import { polledProcessors } from '../processors/registry.js';
import { type JobName, type JobPayload, jobCatalog, type Queues } from './catalog.js';

/**
 * Every job scheduler, upserted from this one place (BullMQ 6 has no legacy repeatable jobs). Postgres
 * holds what should be scheduled; `syncSchedules` makes Redis agree, at every start and every sweep, so
 * a lost Redis gets its schedulers back.
 */

export interface ScheduleSettings {
  deadlineSweepMs: number;
  /** How often the outbox relay runs even when no change notification arrived. */
  relaySweepMs: number;
}

/**
 * Idempotency-Keys past their 24 hours are deleted hourly: they count as new keys already
 * (features/idempotency/keys.ts), so the sweep only frees their space.
 */
const idempotencySweepMs = 3_600_000;

const accountSchedulerPrefix = 'mirror-';

/** The job options a scheduler's jobs carry: the catalog's, minus what only single jobs use. */
function schedulerOptions(name: JobName) {
  const { attempts, backoff, removeOnComplete, removeOnFail } = jobCatalog[name].options;
  return { attempts, backoff, removeOnComplete, removeOnFail };
}

async function upsertScheduler<Name extends JobName>(
  queues: Queues,
  schedulerId: string,
  everyMs: number,
  name: Name,
  payload: JobPayload<Name>,
): Promise<void> {
  const definition = jobCatalog[name];
  await queues.byName[definition.queue].upsertJobScheduler(
    schedulerId,
    { every: everyMs },
    { name, data: definition.payload.parse(payload), opts: schedulerOptions(name) },
  );
}

/**
 * Whether Redis's scheduler is the one the code asks for: its interval, and its job options (a deploy
 * that changes a retry policy reaches the schedulers made before it).
 */
function upToDate(scheduler: JobSchedulerJson | undefined, everyMs: number, name: JobName): boolean {
  if (scheduler?.every !== everyMs || scheduler.name !== name) return false;
  const options = scheduler.template?.opts as Record<string, unknown> | undefined;
  return Object.entries(schedulerOptions(name)).every(([key, value]) =>
    isDeepStrictEqual(options?.[key], value),
  );
}

/**
 * The mirror scheduler of one account: created, changed and removed with the account. Accounts of
 * processors without a list call (`polled: false`) have none.
 */
export async function scheduleAccount(
  queues: Queues,
  account: { uid: string; status: string; pollIntervalSeconds: number; polled: boolean },
): Promise<void> {
  const schedulerId = `${accountSchedulerPrefix}${account.uid}`;
  if (account.status !== 'active' || !account.polled) {
    await queues.byName.mirror.removeJobScheduler(schedulerId);
    return;
  }
  await upsertScheduler(queues, schedulerId, account.pollIntervalSeconds * 1000, 'pollAccount', {
    accountUid: account.uid,
  });
}

/**
 * Makes Redis hold exactly the schedulers Postgres calls for: the fixed ones and one per active account,
 * each at its interval; those of accounts gone or disabled are removed. Only differences are written, so
 * running it every minute (jobs/workers/engine.ts) costs a few reads when nothing changed, and it repairs an
 * account change whose scheduler update missed a Redis outage, or a flushed Redis.
 */
export async function syncSchedules(db: Db, queues: Queues, settings: ScheduleSettings): Promise<void> {
  const fixed = [
    { id: 'deadline-sweep', everyMs: settings.deadlineSweepMs, name: 'sweepDeadlines' as const },
    { id: 'outbox-relay', everyMs: settings.relaySweepMs, name: 'relayEvents' as const },
    { id: 'idempotency-sweep', everyMs: idempotencySweepMs, name: 'sweepIdempotencyKeys' as const },
    // The safety net of automatic refunds, as often as the deadline sweep (docs/operations.md, "Alert refunds").
    { id: 'alert-refund-sweep', everyMs: settings.deadlineSweepMs, name: 'sweepAlertRefunds' as const },
  ];
  for (const { id, everyMs, name } of fixed) {
    const existing = await queues.byName[jobCatalog[name].queue].getJobScheduler(id);
    if (!upToDate(existing, everyMs, name)) await upsertScheduler(queues, id, everyMs, name, {});
  }
  const accounts = await db
    .select({
      uid: connectedAccounts.uid,
      status: connectedAccounts.status,
      pollIntervalSeconds: connectedAccounts.pollIntervalSeconds,
    })
    .from(connectedAccounts)
    .where(
      and(
        eq(connectedAccounts.status, 'active'),
        inArray(connectedAccounts.processor, [...polledProcessors]),
      ),
    );
  const wanted = new Map(accounts.map((account) => [`${accountSchedulerPrefix}${account.uid}`, account]));
  const present = new Map<string, JobSchedulerJson>();
  for (const scheduler of await queues.byName.mirror.getJobSchedulers(0, -1)) {
    present.set(scheduler.key, scheduler);
    if (!wanted.has(scheduler.key)) await queues.byName.mirror.removeJobScheduler(scheduler.key);
  }
  for (const [key, account] of wanted) {
    if (!upToDate(present.get(key), account.pollIntervalSeconds * 1000, 'pollAccount')) {
      await scheduleAccount(queues, { ...account, polled: true });
    }
  }
}
