import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { PushRejectedError, type PushResult } from '../types.js';
import { readXml } from './xml.js';

/**
 * Braintree's webhooks (https://developer.paypal.com/braintree/docs/reference/general/webhooks/dispute,
 * and the SDKs' WebhookNotificationGateway): a form POST of `bt_signature` and `bt_payload`.
 * - `bt_payload` is base64 of the `<notification>` XML (kind, timestamp, subject); the SDKs refuse a
 *   payload with any character outside base64 and newlines before checking anything else.
 * - `bt_signature` is one or more `public_key|signature` pairs joined by `&`; the pair for our public key
 *   counts. signature = hex HMAC-SHA1 of the payload, keyed with the SHA-1 digest of the private key. The
 *   SDKs also accept the signature of the payload with a trailing newline (some senders add one).
 * - `bt_challenge` (endpoint verification) is answered `public_key|HMAC(challenge)`; the SDKs only answer a
 *   challenge of 20 to 32 lower-case hex characters, which cannot be made into a payload that verifies.
 * A dispute notification names a dispute to fetch again; the fetch, not the push, is the truth (its
 * subject can be older than a change already fetched). Other kinds (`check`, transactions) ask nothing.
 */

export interface WebhookKeys {
  publicKey: string;
  privateKey: string;
}

const notification = z.object({
  kind: z.string().min(1),
  subject: z.union([z.record(z.string(), z.unknown()), z.string()]).nullish(),
});
const disputeSubject = z.object({ dispute: z.object({ id: z.string().min(1) }) });

export function readWebhook(body: Buffer, keys: WebhookKeys): PushResult {
  const form = new URLSearchParams(body.toString('utf8'));
  const challenge = form.get('bt_challenge');
  if (challenge !== null && !form.has('bt_payload')) return answerChallenge(challenge, keys);
  const signature = form.get('bt_signature');
  const payload = form.get('bt_payload');
  if (!signature || !payload) throw new PushRejectedError('bt_signature and bt_payload are required');
  if (/[^A-Za-z0-9+=/\n]/.test(payload))
    throw new PushRejectedError('bt_payload contains illegal characters');
  verifySignature(signature, payload, keys);

  let kind: string;
  let subject: unknown;
  try {
    const read = readXml(Buffer.from(payload, 'base64').toString('utf8'));
    if (read.root !== 'notification') throw new Error(`root <${read.root}>`);
    ({ kind, subject } = notification.parse(read.value));
  } catch {
    throw new PushRejectedError('bt_payload is not a Braintree notification');
  }
  if (!kind.startsWith('dispute_')) return { refresh: [], disputes: [] };
  const named = disputeSubject.safeParse(subject);
  if (!named.success) throw new PushRejectedError(`a ${kind} notification without its dispute`);
  return { refresh: [named.data.dispute.id], disputes: [] };
}

/** The signature Braintree puts beside a payload (or a challenge) for these keys. */
export function signatureOf(text: string, privateKey: string): string {
  const key = createHash('sha1').update(privateKey).digest();
  return createHmac('sha1', key).update(text).digest('hex');
}

function verifySignature(signatures: string, payload: string, keys: WebhookKeys): void {
  const ours = signatures
    .split('&')
    .filter((pair) => pair.includes('|'))
    .map((pair) => pair.split('|'))
    .find(([publicKey]) => publicKey === keys.publicKey);
  const given = ours?.[1];
  if (given === undefined) throw new PushRejectedError('no signature for this account’s public key');
  const matches = [payload, `${payload}\n`].some((signed) =>
    sameText(given, signatureOf(signed, keys.privateKey)),
  );
  if (!matches) throw new PushRejectedError('the signature does not match the payload');
}

function answerChallenge(challenge: string, keys: WebhookKeys): PushResult {
  if (!/^[a-f0-9]{20,32}$/.test(challenge)) throw new PushRejectedError('bt_challenge is not a challenge');
  return {
    refresh: [],
    disputes: [],
    reply: {
      contentType: 'text/plain',
      body: `${keys.publicKey}|${signatureOf(challenge, keys.privateKey)}`,
    },
  };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
