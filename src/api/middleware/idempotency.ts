import { createHash, type Hash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import { type Claim, type KeptAnswer, keepAnswer, takeKey } from '../../features/idempotency/keys.js';
import { describeError } from '../../logger.js';
import type { AppDeps } from '../endpoint.js';
import { principalOf } from './auth.js';
import { chargeBytes } from './rate-limit.js';

/**
 * `Idempotency-Key` on the API's writes (docs/api.md, "Idempotent requests"): checks the header, takes the
 * key (features/idempotency/keys.ts), and either answers at once (the kept answer, or a refusal) or lets
 * the request run on a database handle that stamps the key in its first write transaction, keeping its
 * answer just before it goes out. Mounted on every POST, PUT and DELETE endpoint, after the body is read.
 */

const maxKeyLength = 255;

/** Why a sent key is refused, or null: 1 to 255 printable ASCII characters (0x20 to 0x7E). */
export function idempotencyKeyProblem(key: string): string | null {
  if (key.length === 0 || key.length > maxKeyLength) {
    return `it must be 1 to ${maxKeyLength} characters long, not ${key.length}`;
  }
  if (!/^[\x20-\x7e]*$/.test(key)) return 'it may hold only printable ASCII characters (space to ~)';
  return null;
}

/**
 * SHA-256 of the method, the path as sent, and the parameters as the endpoint reads them (the query's
 * merged under the body's: docs/api.md, "Conventions"), in a form of their own that keeps every value
 * apart: objects by sorted keys, strings, numbers, booleans and null as JSON, bytes (an upload's file)
 * by their length and every byte. Key order, the body's encoding and a multipart boundary do not count.
 */
export function requestFingerprint(method: string, path: string, input: unknown): string {
  const hash = createHash('sha256');
  hash.update(`${JSON.stringify(method.toUpperCase())}${JSON.stringify(path)}`);
  feed(hash, input);
  return hash.digest('hex');
}

function feed(hash: Hash, value: unknown): void {
  if (value instanceof Uint8Array) {
    hash.update(`b${value.length}:`);
    hash.update(value);
  } else if (Array.isArray(value)) {
    hash.update('[');
    for (const item of value) {
      feed(hash, item);
      hash.update(',');
    }
    hash.update(']');
  } else if (typeof value === 'object' && value !== null) {
    hash.update('{');
    for (const key of Object.keys(value).sort()) {
      hash.update(`${JSON.stringify(key)}:`);
      feed(hash, (value as Record<string, unknown>)[key]);
      hash.update(',');
    }
    hash.update('}');
  } else {
    // undefined has no JSON text; `u` is no JSON text's start, so it stays apart from every value.
    hash.update(value === undefined ? 'u' : JSON.stringify(value));
  }
}

/** What describes an answer rather than its request: the rest (Request-Id, Service-Version) is the repeat's. */
const keptHeaders = ['content-type'] as const;

/** What the request's endpoint works with: under a key, on the claim's database handle. */
export function requestDeps(res: Response, deps: AppDeps): AppDeps {
  const claim = res.locals.claim as Claim | undefined;
  return claim ? { ...deps, db: claim.db } : deps;
}

export function idempotent(deps: AppDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.headers['idempotency-key'] === undefined) {
      next();
      return;
    }
    // Node joins a repeated header's values with commas: the distinct values tell a repeat apart.
    const sent = req.headersDistinct['idempotency-key'] ?? [];
    const problem = sent.length > 1 ? 'send it once' : idempotencyKeyProblem(sent[0] ?? '');
    if (problem) throw new ApiError('invalid_request', `Invalid Idempotency-Key header: ${problem}.`);
    const { orgId, livemode } = principalOf(res);
    const path = req.originalUrl.split('?')[0] ?? '';
    const taken = await takeKey(deps, {
      tenant: { orgId, livemode },
      key: sent[0] ?? '',
      fingerprint: requestFingerprint(req.method, path, res.locals.input),
      leaseMs: deps.idempotencyLeaseMs,
    });
    if (taken.kind === 'refused') throw taken.error;
    if (taken.kind === 'replay') {
      const { status, headers, body } = taken.answer;
      chargeBytes(res, body.length);
      res.status(status).set(headers).set('Idempotent-Replayed', 'true').send(body);
      return;
    }
    res.locals.claim = taken.claim;
    keepBeforeSending(res, deps, taken.claim);
    next();
  };
}

/**
 * Keeps the answer as it is sent (whether the endpoint made it or the error handler did), then sends it:
 * a client that has the answer gets the same one again on a repeat. A failure to keep it (Postgres away)
 * is logged and the answer still goes out; the key then follows its lease (docs/api.md, "Idempotent
 * requests").
 */
function keepBeforeSending(res: Response, deps: AppDeps, claim: Claim): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    const [chunk, encoding] = args;
    const answer: KeptAnswer = {
      status: res.statusCode,
      headers: Object.fromEntries(
        keptHeaders.flatMap((name) => {
          const value = res.getHeader(name);
          return value === undefined ? [] : [[name, String(value)]];
        }),
      ),
      body: bytesOf(chunk, encoding),
    };
    keepAnswer(deps, claim, answer)
      .catch((error: unknown) =>
        deps.logger.warn({ err: describeError(error) }, 'the answer of an Idempotency-Key was not kept'),
      )
      .finally(() => end(...args));
    return res;
  }) as Response['end'];
}

function bytesOf(chunk: unknown, encoding: unknown): Buffer {
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  if (typeof chunk !== 'string') return Buffer.alloc(0);
  return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}
