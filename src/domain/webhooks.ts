import { createHmac } from 'node:crypto';
import { type ApiVersion, isApiVersion, isOn, referenceNames } from './versions.js';

/**
 * Webhooks as data and pure functions (docs/api.md, "Webhooks"): event kinds, which endpoint gets which event,
 * the payload per API version, the Standard Webhooks signature, and how a failure is told. When a failing
 * delivery gives up is the retry policy's (src/domain/retry-policy.ts).
 */

export const eventTypes = [
  'dispute.created',
  'dispute.updated',
  'dispute.submitted',
  'dispute.closed',
  'dispute.response.generated',
  'dispute.due_soon',
  'dispute.overdue',
  'dispute.submission_failed',
  'alert.created',
  'alert.updated',
  'test',
] as const;
export type EventType = (typeof eventTypes)[number];

/** Subscribes an endpoint to every event kind, present and future. */
export const allEvents = '*';

// ---------------------------------------------------------------------------------------------------------
// Fan-out

export interface Subscriber {
  events: readonly string[];
  apiVersion: string;
}

/**
 * Whether an endpoint gets an event. `test` events go only to the endpoint they were made for, never by
 * subscription. Before 2021-09-15 `dispute.closed` is sent only for disputes whose evidence this service
 * submitted (`submittedHere`).
 */
export function endpointWants(endpoint: Subscriber, type: string, submittedHere: boolean): boolean {
  if (type === 'test') return false;
  if (!endpoint.events.includes(allEvents) && !endpoint.events.includes(type)) return false;
  if (type === 'dispute.closed' && !isOn(endpointVersion(endpoint.apiVersion), 'closedForEveryDispute')) {
    return submittedHere;
  }
  return true;
}

/** An endpoint's stored version; versions are validated on the way in, so anything else is a bug. */
export function endpointVersion(stored: string): ApiVersion {
  if (!isApiVersion(stored)) throw new Error(`webhook endpoint has an unknown api version '${stored}'`);
  return stored;
}

// ---------------------------------------------------------------------------------------------------------
// Payload and signature

/** The attributes of an event's dispute snapshot that a payload carries: all a delivery needs to read. */
export const payloadAttributes = [
  'id',
  'charge',
  /** An alert's linked dispute (alert events name the alert as `alert` and its dispute as `dispute`). */
  'dispute',
  'account_id',
  'evidence',
  'response_document',
  'response_files',
] as const;

export interface WebhookSource {
  /** The delivery's id: the webhook's `id` and `webhook-id`. */
  deliveryId: string;
  type: string;
  livemode: boolean;
  /** The event's data (the dispute object as it was, in the latest shape), at least `payloadAttributes`. */
  data: Record<string, unknown>;
  /**
   * A fresh signed link to the event's response document (`data.response_document`): signed when each
   * attempt is made, so a delivery retried for days still carries a link that works.
   */
  responseUrl?: string | null;
  /** The event's evidence files (`data.response_files`), each with a link signed like `responseUrl`. */
  files?: readonly Record<string, unknown>[];
}

/**
 * The webhook body for an endpoint on `version`: `{id, type, object, livemode, dispute, charge,
 * account_id}` (alert events add `alert` before them: docs/api.md, "Payload"), plus the names of before 2017-10-30 (`dispute_id`, `external_charge`, `user_id`) for
 * endpoints on older versions. A `test` event carries only the first four.
 */
export function webhookPayload(source: WebhookSource, version: ApiVersion): Record<string, unknown> {
  const head = { id: source.deliveryId, type: source.type, object: 'webhook', livemode: source.livemode };
  if (source.type === 'test') return head;
  const { data } = source;
  if (isAlertEvent(source.type)) {
    // An alert event names the alert, and the dispute linked to it (null until one arrives): never the
    // alert's id as `dispute`, in any version.
    return {
      ...head,
      alert: nullableString(data.id),
      ...referenceNames(version, {
        dispute: nullableString(data.dispute),
        charge: nullableString(data.charge),
        account_id: null,
      }),
    };
  }
  const names = referenceNames(version, {
    dispute: nullableString(data.id),
    charge: nullableString(data.charge),
    account_id: nullableString(data.account_id),
  });
  if (source.type !== 'dispute.response.generated') return { ...head, ...names };
  return {
    ...head,
    ...names,
    evidence: data.evidence ?? null,
    response_url: source.responseUrl ?? null,
    files: source.files ?? [],
  };
}

/** The events about an alert rather than a dispute (docs/api.md, "Alerts"). */
export const isAlertEvent = (type: string) => type.startsWith('alert.');

const nullableString = (value: unknown) => (typeof value === 'string' ? value : null);

const secretPrefix = 'whsec_';

/**
 * The Standard Webhooks signature (https://www.standardwebhooks.com): `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  if (!secret.startsWith(secretPrefix)) throw new Error('not a webhook signing secret');
  const key = Buffer.from(secret.slice(secretPrefix.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The headers of one attempt; `webhook-id` is the delivery's id, the same on every retry. One signature per
 * secret, space-separated as Standard Webhooks allows: the endpoint's secret, and while a rotation's overlap
 * lasts the one it replaced (docs/api.md, "Signing").
 */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' '),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Failures (when one gives up: src/domain/retry-policy.ts)

/** What the receiver answered, for the delivery log and the reasons people read. */
export function describeAnswer(answer: { status: number | null; error: string | null }): string {
  return answer.status === null ? (answer.error ?? 'no answer') : `HTTP ${answer.status}`;
}

export const disabledReason = (lastAnswer: string) =>
  `disabled after 3 days of failed deliveries; last answer: ${lastAnswer}`;
