import { createHmac, timingSafeEqual } from 'node:crypto';
import { PushRejectedError } from '../types.js';

/**
 * Worldpay's Events webhook signature (docs.worldpay.com/access/products/events/signature): the
 * Event-Signature header holds one or more `{keyId}/SHA256/{hex HMAC}`, in any order; the one under the
 * account's key id must be the HMAC of the exact body under the shared secret.
 */

/** Throws PushRejectedError unless the body carries a valid signature under the account's key. */
export function verifySignature(
  header: string | string[] | undefined,
  body: Buffer,
  credentials: { webhook_key_id: string; webhook_secret: string },
): void {
  const signatures = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((part) => part.trim().split('/'))
    .filter((parts) => parts.length === 3);
  if (signatures.length === 0) throw new PushRejectedError('no Event-Signature header');
  const ours = signatures.find(
    ([keyId, hash]) => keyId === credentials.webhook_key_id && hash?.toUpperCase() === 'SHA256',
  );
  if (!ours) {
    throw new PushRejectedError(`no SHA256 signature under key id ${credentials.webhook_key_id}`);
  }
  const expected = createHmac('sha256', credentials.webhook_secret).update(body).digest();
  const given = Buffer.from(ours[2] ?? '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new PushRejectedError('the Event-Signature does not match the body');
  }
}
