import { randomBytes } from 'node:crypto';

/** Every id this service mints, by prefix. Dispute and template ids come from processors and clients. */
export const idPrefixes = {
  organisation: 'org',
  apiKey: 'key',
  submission: 'sub',
  /** A response document: the evidence and PDF of one submission. */
  document: 'doc',
  event: 'evt',
  webhookEndpoint: 'we',
  /** A delivery of one event to one endpoint: the webhook's `id` and its stable `webhook-id` header. */
  webhookDelivery: 'wh',
  webhookSecret: 'whsec',
  personalDataRequest: 'pdr',
  /** An uploaded file: evidence a dispute names, or a product image fetched for one. */
  file: 'file',
} as const;

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

export function newId(kind: keyof typeof idPrefixes): string {
  // 20 characters of base36: about 103 bits, plenty against collisions; rejection sampling keeps it uniform.
  let out = '';
  while (out.length < 20) {
    for (const byte of randomBytes(24)) {
      if (byte < 252 && out.length < 20) out += alphabet[byte % 36];
    }
  }
  return `${idPrefixes[kind]}_${out}`;
}
