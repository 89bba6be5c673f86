import { describe, expect, it } from 'vitest';
import { isConnectionFailure } from '../../src/db/unavailable.js';

/** Which driver errors the API answers with 503 `unavailable` (src/db/unavailable.ts), as a table. */
describe('isConnectionFailure', () => {
  it.each([
    ['ECONNREFUSED', true],
    ['CONNECTION_CLOSED', true],
    ['57P01', true],
    ['08P01', true],
    ['26000', true],
    ['SELF_SIGNED_CERT_IN_CHAIN', true],
    ['CERT_HAS_EXPIRED', true],
    ['ERR_TLS_CERT_ALTNAME_INVALID', true],
    ['23505', false],
    ['42P01', false],
    ['toString', false],
  ])('%s: %s', (code, expected) => {
    expect(isConnectionFailure(Object.assign(new Error('driver'), { code }))).toBe(expected);
  });

  it('is false for what carries no code', () => {
    expect(isConnectionFailure(new Error('no code'))).toBe(false);
    expect(isConnectionFailure(undefined)).toBe(false);
  });
});
