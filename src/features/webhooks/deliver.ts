import { and, eq, sql } from 'drizzle-orm';
import { Batcher } from '../../db/batcher.js';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';
import type { DocumentLinks } from '../../documents/links.js';
import { afterDeliveryFailure } from '../../domain/retry-policy.js';
import {
  describeAnswer,
  disabledReason,
  endpointVersion,
  payloadAttributes,
  webhookHeaders,
  webhookPayload,
} from '../../domain/webhooks.js';
import type { SecretBox } from '../../secrets.js';
import { sealedAt } from '../secrets/sealed-columns.js';
import type { SendResult, WebhookSender } from './send.js';

/**
 * One attempt at one delivery: sign the payload in the endpoint's version, POST it, log the attempt, and
 * record what follows (delivered; retry later; given up; endpoint disabled). The delivery row's status is
 * the durable guard: a delivery already finished is left alone, whatever job runs for it.
 */

export interface DeliveryDeps {
  db: Db;
  secrets: SecretBox;
  sender: WebhookSender;
  /** Signs the `response_url` and the files' links of `dispute.response.generated` payloads. */
  links: DocumentLinks;
  now?: () => Date;
}

export type DeliveryOutcome =
  /** Nothing to do: the delivery is gone (its endpoint was deleted) or already finished. */
  | { status: 'skipped' }
  | { status: 'succeeded'; httpStatus: number }
  /** Ended without an attempt: the endpoint was disabled before its turn came. */
  | { status: 'abandoned'; reason: string }
  /** Ended after this failed attempt: 3 days of failures, for the delivery or for its endpoint. */
  | { status: 'failed'; reason: string }
  /** Tried again after `afterMs`, the wait its `next_attempt_at` records. */
  | { status: 'retry'; reason: string; afterMs: number };

/** Only what the payload carries, not the whole snapshot: a dispute's evidence may weigh hundreds of KiB. */
const payloadData = sql<Record<string, unknown>>`jsonb_build_object(${sql.join(
  payloadAttributes.map((name) => sql`${sql.raw(`'${name}'`)}, ${events.data}->${sql.raw(`'${name}'`)}`),
  sql`, `,
)})`;

const loadDeliveries = preparedFor((db) =>
  db
    .select({
      id: webhookDeliveries.id,
      status: webhookDeliveries.status,
      firstAttemptAt: webhookDeliveries.firstAttemptAt,
      livemode: webhookDeliveries.livemode,
      type: events.type,
      data: payloadData,
      endpointId: webhookEndpoints.id,
      url: webhookEndpoints.url,
      secret: webhookEndpoints.secret,
      previousSecret: webhookEndpoints.previousSecret,
      previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
      apiVersion: webhookEndpoints.apiVersion,
      enabled: webhookEndpoints.enabled,
      disabledReason: webhookEndpoints.disabledReason,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    // The ids as one JSON array, so the statement is the same whatever the batch size, and prepared once.
    .where(
      sql`${webhookDeliveries.id} = any(array(select jsonb_array_elements_text(${sql.placeholder('ids')}::jsonb)))`,
    )
    .prepare('load_webhook_deliveries'),
);

type Delivery = Awaited<ReturnType<ReturnType<typeof loadDeliveries>['execute']>>[number];

interface Success {
  delivery: Delivery;
  attemptedAt: Date;
  result: SendResult;
  completedAt: Date;
}

/** Most deliveries succeed: their reads and their records are batched, so they share round trips and commits. */
const maxBatch = 200;

export type Deliver = (deliveryId: string, attempt: number) => Promise<DeliveryOutcome>;

/**
 * The delivery function of one worker process. `attempt` is the try of the delivery's job (1 for the
 * first): a failure's retry waits by it (src/domain/retry-policy.ts).
 */
export function webhookDeliverer(deps: DeliveryDeps): Deliver {
  const loads = new Batcher(async (ids: string[]) => {
    const rows = await loadDeliveries(deps.db).execute({ ids: JSON.stringify(ids) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }, maxBatch);
  const successes = new Batcher(async (batch: Success[]) => {
    await recordSuccesses(deps.db, batch);
    return batch.map(() => undefined);
  }, maxBatch);

  return async (deliveryId, attempt) => {
    const delivery = await loads.call(deliveryId);
    if (delivery?.status !== 'pending') return { status: 'skipped' };
    // A test event is sent to a disabled endpoint too: it is how a client checks it before enabling it again.
    const abandon = async (reason: string) => {
      await deps.db
        .update(webhookDeliveries)
        .set({ status: 'failed', lastError: reason, nextAttemptAt: null, completedAt: now(deps) })
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending')));
      return { status: 'abandoned', reason } as const;
    };
    if (!delivery.enabled && delivery.type !== 'test') {
      return abandon(`endpoint disabled: ${delivery.disabledReason ?? 'by request'}`);
    }

    const attemptedAt = now(deps);
    const document = delivery.data.response_document;
    const body = JSON.stringify(
      webhookPayload(
        {
          deliveryId,
          type: delivery.type,
          livemode: delivery.livemode,
          data: delivery.data,
          responseUrl: typeof document === 'string' ? deps.links.url(document, attemptedAt) : null,
          files: signedFiles(deps.links, delivery.data.response_files, attemptedAt),
        },
        endpointVersion(delivery.apiVersion),
      ),
    );
    let secrets: string[];
    try {
      secrets = signingSecrets(deps.secrets, delivery, attemptedAt);
    } catch {
      // Sealed under another APP_SECRET: no retry can sign it, so the delivery ends now, visibly, rather
      // than retrying unseen for days. Every process must share one APP_SECRET (docs/operations.md, "Configuration").
      return abandon('the signing secret cannot be read: this process has a different APP_SECRET');
    }
    const headers = webhookHeaders(secrets, deliveryId, attemptedAt, body);
    const result = await deps.sender.send(delivery.url, headers, body);
    if (result.ok && result.status !== null) {
      await successes.call({ delivery, attemptedAt, result, completedAt: now(deps) });
      return { status: 'succeeded', httpStatus: result.status };
    }
    return recordFailure(deps, delivery, attemptedAt, result, attempt);
  };
}

/** The event's evidence files (none in events recorded before there were any), each with a fresh link. */
function signedFiles(links: DocumentLinks, recorded: unknown, at: Date): Record<string, unknown>[] {
  if (!Array.isArray(recorded)) return [];
  return recorded.map((file: Record<string, unknown>) => ({
    ...file,
    url: typeof file.file === 'string' ? links.fileUrl(file.file, at) : null,
  }));
}

/**
 * The endpoint's secret, and the one its last rotation replaced while their overlap lasts (docs/api.md,
 * "Signing"): a receiver that has not switched yet still verifies.
 */
function signingSecrets(box: SecretBox, delivery: Delivery, at: Date): string[] {
  const current = box.open(delivery.secret, sealedAt('webhookSecret', delivery.endpointId));
  const { previousSecret, previousSecretExpiresAt } = delivery;
  if (previousSecret === null || previousSecretExpiresAt === null || previousSecretExpiresAt <= at) {
    return [current];
  }
  return [current, box.open(previousSecret, sealedAt('webhookPreviousSecret', delivery.endpointId))];
}

/**
 * One statement for a batch, so one round trip and one commit: the deliveries finished, their attempts
 * logged, their endpoints healthy again. The batch goes as one JSON parameter, so the statement text is
 * the same whatever its size.
 */
async function recordSuccesses(db: Db, successes: Success[]): Promise<void> {
  const batch = successes.map((success) => ({
    id: success.delivery.id,
    endpoint_id: success.delivery.endpointId,
    status: success.result.status,
    attempted_at: success.attemptedAt.toISOString(),
    completed_at: success.completedAt.toISOString(),
    duration_ms: success.result.durationMs,
  }));
  await db.execute(sql`
    with done as (
      select * from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as done(
        id text, endpoint_id text, status int, attempted_at timestamptz, completed_at timestamptz,
        duration_ms int)
    ), finished as (
      update ${webhookDeliveries} as delivery
      set status = 'succeeded', attempts = delivery.attempts + 1, last_status = done.status,
        last_error = null, first_attempt_at = coalesce(delivery.first_attempt_at, done.attempted_at),
        next_attempt_at = null, completed_at = done.completed_at
      from done
      -- By primary key: a plain join would read the whole pending index, the backlog, for every batch.
      where delivery.id = any(array(select id from done)) and delivery.id = done.id
        and delivery.status = 'pending'
      returning delivery.id
    ), logged as (
      -- Only the attempts this statement finished: a delivery finished elsewhere (or whose endpoint was
      -- deleted meanwhile, taking its row) is not logged twice; the update's row lock keeps the rest.
      insert into ${webhookAttempts} (delivery_id, attempted_at, status, duration_ms)
      select done.id, attempted_at, status, duration_ms from done join finished on finished.id = done.id
    )
    update ${webhookEndpoints} as endpoint set failing_since = null
    from done
    where endpoint.id = done.endpoint_id and endpoint.failing_since is not null`);
}

async function recordFailure(
  deps: DeliveryDeps,
  delivery: Delivery,
  attemptedAt: Date,
  result: SendResult,
  attempt: number,
): Promise<DeliveryOutcome> {
  const at = now(deps);
  const answer = describeAnswer(result);
  return deps.db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      deliveryId: delivery.id,
      attemptedAt,
      status: result.status,
      error: result.error,
      durationMs: result.durationMs,
    });
    const [endpoint] = await tx
      .update(webhookEndpoints)
      .set({
        failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${attemptedAt.toISOString()}::timestamptz)`,
      })
      .where(eq(webhookEndpoints.id, delivery.endpointId))
      .returning({ failingSince: webhookEndpoints.failingSince, enabled: webhookEndpoints.enabled });
    const decision = afterDeliveryFailure(
      {
        firstAttemptAt: delivery.firstAttemptAt ?? attemptedAt,
        // A disabled endpoint still takes test events; its old run of failures must not end them at once.
        failingSince: endpoint?.enabled ? (endpoint.failingSince ?? attemptedAt) : attemptedAt,
        now: at,
      },
      attempt,
    );
    const disabling = decision.decision === 'fail' && decision.disableEndpoint && endpoint?.enabled === true;
    if (disabling) {
      await tx
        .update(webhookEndpoints)
        .set({ enabled: false, disabledReason: disabledReason(answer), updatedAt: at })
        .where(eq(webhookEndpoints.id, delivery.endpointId));
    }
    await tx
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        lastStatus: result.status,
        lastError: answer,
        // The row's own value, not the one read before the call: a redelivery meanwhile restarted it.
        firstAttemptAt: sql`coalesce(${webhookDeliveries.firstAttemptAt}, ${attemptedAt.toISOString()}::timestamptz)`,
        ...(decision.decision === 'fail'
          ? { status: 'failed' as const, nextAttemptAt: null, completedAt: at }
          : { nextAttemptAt: new Date(at.getTime() + decision.afterMs) }),
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending')));
    if (decision.decision === 'retry') return { status: 'retry', reason: answer, afterMs: decision.afterMs };
    const reason = disabling
      ? `endpoint ${disabledReason(answer)}`
      : `gave up after 3 days of failed attempts; last answer: ${answer}`;
    return { status: 'failed', reason };
  });
}

const now = (deps: DeliveryDeps) => deps.now?.() ?? new Date();
