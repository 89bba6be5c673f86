import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { checkPushAge, pushMaxAgeMs } from '../push-age.js';
import { PushRejectedError, type PushRequest, type PushResult } from '../types.js';

/**
 * Checkout.com's webhooks: `Cko-Signature` is the hex HMAC-SHA256 of the raw body with the webhook
 * action's signature key
 * (https://www.checkout.com/docs/developer-resources/webhooks/manage-webhooks/set-up-your-webhook-receiver).
 * A `dispute_*` event names its dispute in `data.id`, which is fetched again; other events say nothing
 * about disputes. The signature covers the event's `created_on`, and a retry is sent with its first
 * body: an event older than Checkout.com's retries (push-age.ts) is a replay, refused.
 */

const webhookEvent = z.object({
  type: z.string(),
  created_on: z.string().optional(),
  data: z.object({ id: z.string().min(1) }).nullish(),
});

/** The disputes a verified push names; PushRejectedError when it does not verify or is no event. */
export function readNotification(
  headers: PushRequest['headers'],
  body: Buffer,
  signatureKey: string,
): PushResult {
  const signature = headerValue(headers, 'cko-signature') ?? '';
  const expected = createHmac('sha256', signatureKey).update(body).digest();
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new PushRejectedError('The Cko-Signature header does not match the body.');
  }
  let event: z.infer<typeof webhookEvent>;
  try {
    event = webhookEvent.parse(JSON.parse(body.toString('utf8')));
  } catch {
    throw new PushRejectedError('The push is not a Checkout.com event.');
  }
  checkPushAge(event.created_on ? new Date(event.created_on) : null, pushMaxAgeMs.checkout);
  const id = event.type.startsWith('dispute_') ? event.data?.id : undefined;
  return { refresh: id ? [id] : [], disputes: [] };
}

function headerValue(headers: PushRequest['headers'], name: string): string | undefined {
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}
