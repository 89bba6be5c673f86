import { createHmac, timingSafeEqual } from 'node:crypto';
import { PushRejectedError } from '../types.js';

/**
 * Stripe's webhook signature (stripe.com/docs/webhooks/signatures#verify-manually): the
 * `Stripe-Signature` header is `t=<unix time>,v1=<hex>[,v1=<hex>...]`, each v1 the hex HMAC-SHA256 of
 * `<t>.<raw body>` under the endpoint's signing secret (several while a secret is being rolled). Other
 * schemes (v0) are ignored, as Stripe's own libraries do.
 */

/** Stripe's libraries refuse signatures older than five minutes by default: a replayed push is refused. */
export const signatureToleranceSeconds = 300;

export function verifyStripeSignature(
  header: string | string[] | undefined,
  body: Buffer,
  secret: string,
  nowSeconds: number,
): void {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw new PushRejectedError('The push carries no Stripe-Signature header.');
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of value.split(',')) {
    const [scheme, signed] = item.trim().split('=', 2);
    if (scheme === 't') timestamp = signed;
    else if (scheme === 'v1' && signed) signatures.push(signed);
  }
  if (!timestamp || !/^\d+$/.test(timestamp) || signatures.length === 0) {
    throw new PushRejectedError('The Stripe-Signature header has no timestamp or no v1 signature.');
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > signatureToleranceSeconds) {
    throw new PushRejectedError('The Stripe-Signature timestamp is outside the tolerance.');
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new PushRejectedError('The Stripe-Signature does not match the body.');
}
