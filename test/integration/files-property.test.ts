import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { sampleJpeg, samplePdf, samplePng } from '../helpers/evidence-files.js';
import { fetchRaw, storedCounts, upload } from '../helpers/files.js';

/**
 * Whatever bytes and names an upload carries (docs/api.md, "Uploading"): random bytes and random damage
 * to valid files are taken (201) or refused as a bad file (400 invalid_file), never a 500, and a refusal
 * keeps nothing; any name is kept clean, and its download header stays one header.
 */

let api: TestApi;
let key: string;
let valid: Buffer[];
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  key = (await api.createOrg()).test_key;
  valid = [samplePng('Property', 120, 80), sampleJpeg('Property', 120, 80), await samplePdf('Property', 1)];
});
afterAll(async () => {
  await api.close();
});

/** One change to a file: cut it, overwrite bytes, insert bytes, or keep only a piece of it. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('overwrite' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }),
  }),
  fc.record({ kind: fc.constant('slice' as const), from: fc.nat(), to: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(file: Buffer, change: Mutation): Buffer {
  const at = (n: number) => (file.length === 0 ? 0 : n % (file.length + 1));
  switch (change.kind) {
    case 'cut':
      return file.subarray(0, at(change.at));
    case 'overwrite': {
      const copy = Buffer.from(file);
      Buffer.from(change.bytes).copy(copy, Math.min(at(change.at), Math.max(0, copy.length - 1)));
      return copy;
    }
    case 'insert':
      return Buffer.concat([file.subarray(0, at(change.at)), change.bytes, file.subarray(at(change.at))]);
    case 'slice':
      return file.subarray(
        Math.min(at(change.from), at(change.to)),
        Math.max(at(change.from), at(change.to)),
      );
  }
}

/** Bytes to send: random ones, random ones behind a real signature, or a valid file with damage. */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 4096 }).map((array) => Buffer.from(array)),
  fc
    .tuple(
      fc.constantFrom('\x89PNG\r\n\x1a\n', '\xff\xd8\xff', '%PDF-1.7\n'),
      fc.uint8Array({ maxLength: 2048 }),
    )
    .map(([signature, rest]) => Buffer.concat([Buffer.from(signature, 'latin1'), rest])),
  fc
    .tuple(fc.nat({ max: 2 }), fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([which, changes]) => changes.reduce(mutate, valid[which] as Buffer)),
);

describe('POST /v1/files with any bytes', () => {
  it('answers 201 or 400 invalid_file, never a 500, and keeps nothing it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(bytes, async (sent) => {
        const before = await storedCounts(api);
        const response = await upload(api, key, sent, 'any.bin');
        if (response.status === 201) {
          expect(response.body.size).toBe(sent.length);
          return;
        }
        expect({ status: response.status, type: (response.body.error as { type?: string }).type }).toEqual({
          status: 400,
          type: 'invalid_file',
        });
        expect(await storedCounts(api)).toEqual(before);
      }),
      { seed: 18, numRuns: 150, endOnFailure: true },
    );
  });

  it('keeps any name clean, at most 255 characters, and serves it in one Content-Disposition header', async () => {
    const png = samplePng('Named', 60, 40);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 400 }), async (name) => {
        const response = await upload(api, key, png, name);
        // A name whose raw bytes break the part's header is a malformed body, refused as such.
        if (response.status === 400) {
          expect((response.body.error as { type?: string }).type).toBe('invalid_request');
          return;
        }
        expect(response.status, response.text).toBe(201);
        const kept = String(response.body.filename);
        expect([...kept].length).toBeLessThanOrEqual(255);
        expect(kept).not.toMatch(/[\p{Cc}\p{Cf}/\\]/u);
        const contents = await fetchRaw(api, key, `/v1/files/${String(response.body.id)}/contents`);
        expect(contents.status).toBe(200);
        expect(String(contents.headers['content-disposition'])).toMatch(
          /^attachment; filename="[\x20-\x21\x23-\x5b\x5d-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/,
        );
      }),
      { seed: 6266, numRuns: 60, endOnFailure: true },
    );
  });
});
