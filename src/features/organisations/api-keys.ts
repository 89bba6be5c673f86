import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** API key format: `test_` or `live_` then 32 random bytes in base64url (43 characters). */
export type Mode = 'test' | 'live';

const keyPattern = /^(test|live)_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(mode: Mode): string {
  return `${mode}_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Cheap shape check before any lookup: a string that cannot be a key costs no database query. */
export function looksLikeApiKey(key: string): boolean {
  return keyPattern.test(key);
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The Postgres channel on which key rotation and settings changes tell every process to drop cached keys. */
export const authInvalidationChannel = 'rebuttal_auth_invalidate';

/** The invalidation message for one key: `key:<sha-256 hex>` (settings changes send `org:<id>`). */
export const keyInvalidation = (hash: string) => `key:${hash}`;

/** The invalidation message for every key of an organisation, whose settings the keys carry changed. */
export const orgInvalidation = (org: string) => `org:${org}`;
