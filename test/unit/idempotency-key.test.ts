import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyProblem, requestFingerprint } from '../../src/api/middleware/idempotency.js';

/**
 * docs/api.md, "Idempotent requests": a key is 1 to 255 printable ASCII characters (0x20 to 0x7E); a
 * request's fingerprint is its method, path and parameters, whatever their order or encoding.
 */

/** The rule restated from the contract, character by character. */
const printable = (code: number) => code >= 0x20 && code <= 0x7e;
const acceptable = (key: string) =>
  key.length >= 1 && key.length <= 255 && [...key].every((char) => printable(char.charCodeAt(0)));

const anyChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0, max: 0x1f }),
  fc.constant(0x7f),
  fc.integer({ min: 0x80, max: 0xffff }).filter((code) => code < 0xd800 || code > 0xdfff),
);
const keys = fc.oneof(
  fc.array(anyChar, { maxLength: 300 }),
  fc.array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 250, maxLength: 260 }),
  fc.array(fc.integer({ min: 0x20, max: 0x7e }), { maxLength: 3 }),
);

describe('the Idempotency-Key rule', () => {
  it('takes exactly 1 to 255 printable ASCII characters', () => {
    fc.assert(
      fc.property(keys, (codes) => {
        const key = String.fromCharCode(...codes);
        expect(idempotencyKeyProblem(key) === null).toBe(acceptable(key));
      }),
      { numRuns: 2000 },
    );
  });

  it('says what is wrong: the length first, then the characters', () => {
    expect(idempotencyKeyProblem('')).toBe('it must be 1 to 255 characters long, not 0');
    expect(idempotencyKeyProblem('é'.repeat(256))).toBe('it must be 1 to 255 characters long, not 256');
    expect(idempotencyKeyProblem('a\u0000b')).toBe(
      'it may hold only printable ASCII characters (space to ~)',
    );
    expect(idempotencyKeyProblem(' ')).toBeNull();
    expect(idempotencyKeyProblem('~'.repeat(255))).toBeNull();
  });
});

/** JSON-like parameters as the API reads them: nested objects, arrays, strings, numbers, booleans, null. */
const parameters = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), {
  maxKeys: 8,
});

function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reordered(item)]),
  );
}

describe('the request fingerprint', () => {
  it('does not depend on the order of keys, at any depth', () => {
    fc.assert(
      fc.property(parameters, (input) => {
        expect(requestFingerprint('POST', '/v1/disputes', reordered(input))).toBe(
          requestFingerprint('POST', '/v1/disputes', input),
        );
      }),
    );
  });

  it('differs when a parameter is added, or a value changes its value or its type', () => {
    fc.assert(
      fc.property(
        parameters,
        fc.string({ maxLength: 8 }),
        fc.jsonValue({ maxDepth: 1 }),
        (input, key, value) => {
          const changed = { ...input, [key]: value };
          fc.pre(JSON.stringify(changed[key]) !== JSON.stringify(input[key]) || !(key in input));
          expect(requestFingerprint('POST', '/p', changed)).not.toBe(requestFingerprint('POST', '/p', input));
        },
      ),
    );
    const base = requestFingerprint('POST', '/p', { amount: 100 });
    expect(requestFingerprint('POST', '/p', { amount: '100' })).not.toBe(base);
    expect(requestFingerprint('PUT', '/p', { amount: 100 })).not.toBe(base);
    expect(requestFingerprint('POST', '/q', { amount: 100 })).not.toBe(base);
    expect(requestFingerprint('POST', '/p', { amount: [100] })).not.toBe(base);
    expect(requestFingerprint('POST', '/p', {})).not.toBe(requestFingerprint('POST', '/p', { a: undefined }));
  });

  it("counts an upload's every byte, apart from any text", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), (bytes, at) => {
        const file = (data: Uint8Array) => ({ file: { bytes: Buffer.from(data), filename: 'a.png' } });
        const flipped = Uint8Array.from(bytes);
        const index = at % flipped.length;
        flipped[index] = (flipped[index] ?? 0) ^ 0xff;
        expect(requestFingerprint('POST', '/v1/files', file(flipped))).not.toBe(
          requestFingerprint('POST', '/v1/files', file(bytes)),
        );
        const asText = { file: { bytes: Buffer.from(bytes).toString('latin1'), filename: 'a.png' } };
        expect(requestFingerprint('POST', '/v1/files', asText)).not.toBe(
          requestFingerprint('POST', '/v1/files', file(bytes)),
        );
      }),
    );
  });
});
