import { type Got, got, HTTPError, type OptionsOfTextResponseBody, RequestError } from 'got';
import type { z } from 'zod';
import type { Logger } from '../logger.js';
import { loggedPath } from './call-path.js';
import { encodeMultipart, type FormPart } from './multipart.js';
import { refusalCode, refusalText } from './refusal-text.js';
import { ProcessorError } from './types.js';

/**
 * The one way adapters reach a processor over HTTP (docs/architecture.md, "Processors"):
 * - every call has a deadline (the job's lock is renewed while it runs, so a slow processor does not
 *   lose the job to another worker);
 * - got retries only calls the caller marks idempotent (reads, and writes carrying the processor's
 *   idempotency key), twice, quickly, honouring a short Retry-After; anything longer is the job's
 *   business, with its own backoff and the same Retry-After;
 * - each call passes the account's guard first (guard.ts: the per-account rate limit held in Redis and
 *   the circuit breaker), and tells it how the call went;
 * - each call is logged with its method, path, status and time, never its headers, body or query (where
 *   credentials and customer data travel);
 * - every failure is a ProcessorError: transient (no answer, 429, 5xx) or permanent (any other refusal),
 *   with the processor's status and the start of its answer, credentials removed.
 */
export const processorTimeoutMs = 30_000;
/** The most a Retry-After may ask for before got stops waiting and the job's backoff takes over. */
const inlineRetryAfterMs = 5000;
const excerptLength = 300;

/** What the rate limit and the circuit breaker of one account decide (guard.ts). */
export interface CallGuard {
  /** Waits for the account's rate limit; throws a transient ProcessorError when the circuit is open. */
  admit(call: Pick<HttpCall, 'method' | 'path'>): Promise<void>;
  /** How the call went: `failure` only for the processor being away (no answer, 5xx). */
  record(outcome: 'success' | 'failure'): Promise<void>;
}

export interface ProcessorHttpOptions {
  processor: string;
  baseUrl: string;
  /** Sent on every call (authentication, versions); never logged. */
  headers?: Record<string, string>;
  guard?: CallGuard;
  logger?: Logger;
  /** Values to cut out of any excerpt of an answer (the account's credentials). */
  secrets?: readonly string[];
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to the base URL (no leading slash), or absolute for a second host of the same processor. */
  path: string;
  searchParams?: Record<string, string | number | boolean | undefined> | URLSearchParams;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: string | Buffer;
  /** A multipart/form-data body, encoded to the same bytes on every send (multipart.ts). */
  multipart?: readonly FormPart[];
  /** Safe to send again: reads, and writes the processor deduplicates (an idempotency key). */
  idempotent?: boolean;
  /** Statuses that are answers, not failures (a 404 from a fetch: no such dispute). */
  answers?: readonly number[];
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export class ProcessorHttp {
  readonly #options: ProcessorHttpOptions;
  readonly #got: Got;

  constructor(options: ProcessorHttpOptions) {
    this.#options = options;
    this.#got = got.extend({
      prefixUrl: options.baseUrl.replace(/\/?$/, '/'),
      headers: { 'user-agent': 'rebuttal', ...options.headers },
      timeout: { request: processorTimeoutMs },
      followRedirect: false,
      retry: {
        limit: 0,
        statusCodes: [429, 500, 502, 503, 504],
        maxRetryAfter: inlineRetryAfterMs,
        backoffLimit: 2000,
      },
    });
  }

  get processor(): string {
    return this.#options.processor;
  }

  /** Sends one call; a 2xx (or a status in `answers`) is returned, anything else thrown as a ProcessorError. */
  async send(call: HttpCall): Promise<HttpAnswer> {
    const { guard, logger, processor } = this.#options;
    await guard?.admit(call);
    const started = performance.now();
    const path = call.path.replace(/^\//, '');
    const absolute = /^https?:\/\//.test(path);
    const multipart = call.multipart && encodeMultipart(call.multipart);
    const options: OptionsOfTextResponseBody = {
      method: call.method,
      ...(absolute ? { prefixUrl: '' } : {}),
      ...(call.searchParams && { searchParams: withoutUndefined(call.searchParams) }),
      ...((call.headers || multipart) && {
        headers: { ...call.headers, ...(multipart && { 'content-type': multipart.contentType }) },
      }),
      ...(call.json !== undefined && { json: call.json }),
      ...(call.form && { form: call.form }),
      ...(call.body !== undefined && { body: call.body }),
      ...(multipart && { body: multipart.body }),
      retry: call.idempotent ? { limit: 2, methods: [call.method] } : { limit: 0 },
    } as OptionsOfTextResponseBody;
    const logged = {
      processor,
      method: call.method,
      path: loggedPath(call.path),
    };
    try {
      const response = await this.#got(path, options);
      // got takes 3xx as an answer when redirects are not followed; a processor's API never redirects a
      // call that worked (a proxy, a login page, an http base URL sent to https may): a refusal.
      if (response.statusCode >= 300 && !call.answers?.includes(response.statusCode)) {
        throw this.refusal({ status: response.statusCode, headers: response.headers, body: response.body });
      }
      await guard?.record('success');
      logger?.debug({ ...logged, status: response.statusCode, ms: elapsed(started) }, 'processor call');
      return { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (thrown) {
      if (thrown instanceof HTTPError && call.answers?.includes(thrown.response.statusCode)) {
        await guard?.record('success');
        const { statusCode, headers, body } = thrown.response;
        logger?.debug({ ...logged, status: statusCode, ms: elapsed(started) }, 'processor call');
        return { status: statusCode, headers, body: String(body ?? '') };
      }
      const error = thrown instanceof ProcessorError ? thrown : this.#errorFrom(thrown);
      // Only the processor being away counts towards the circuit: no answer, or a 5xx.
      const away = error.retryable && (error.status === undefined || error.status >= 500);
      await guard?.record(away ? 'failure' : 'success');
      logger?.warn(
        { ...logged, status: error.status, ms: elapsed(started), retryable: error.retryable },
        'processor call failed',
      );
      throw error;
    }
  }

  /** Sends a call and reads its JSON answer with `schema`; a shape we cannot read is a permanent error. */
  async json<Schema extends z.ZodType>(call: HttpCall, schema: Schema): Promise<z.infer<Schema>> {
    return this.read(await this.send(call), schema, (body) => JSON.parse(body));
  }

  /** Reads an answer's body with `parse` (JSON, XML) and checks it against `schema`. */
  read<Schema extends z.ZodType>(
    answer: HttpAnswer,
    schema: Schema,
    parse: (body: string) => unknown,
  ): z.infer<Schema> {
    let parsed: unknown;
    try {
      parsed = parse(answer.body);
    } catch {
      throw this.unreadable(answer, 'is not in the expected format');
    }
    const checked = schema.safeParse(parsed);
    if (checked.success) return checked.data;
    const issue = checked.error.issues[0];
    throw this.unreadable(
      answer,
      `has an unexpected shape (${issue?.path.join('.') || 'body'}: ${issue?.message})`,
    );
  }

  /** The processor answered, but not in a way we understand: sending again will not change that. */
  unreadable(answer: HttpAnswer, what: string): ProcessorError {
    return new ProcessorError(this.processor, `The processor's answer ${what}.`, {
      retryable: false,
      status: answer.status,
      excerpt: this.excerpt(answer.body),
    });
  }

  /** The start of an answer, with the account's credentials cut out (before cutting, so none is halved). */
  excerpt(body: string): string {
    return this.#redacted(body).slice(0, excerptLength);
  }

  /**
   * The error for an answer that is not a success: its status, what the processor said where its answer
   * says it, and the start of the answer.
   */
  refusal(answer: HttpAnswer): ProcessorError {
    const said = refusalText(this.#redacted(answer.body));
    const message = said
      ? `The processor answered ${answer.status}: ${said}`
      : `The processor answered ${answer.status}.`;
    const code = refusalCode(answer.body);
    return errorFromAnswer(this.processor, { statusCode: answer.status, headers: answer.headers }, message, {
      excerpt: this.excerpt(answer.body),
      ...(code === undefined ? {} : { code }),
    });
  }

  #redacted(body: string): string {
    let text = body;
    for (const secret of this.#options.secrets ?? []) text = text.split(secret).join('[redacted]');
    return text;
  }

  #errorFrom(thrown: unknown): ProcessorError {
    const { processor } = this.#options;
    if (thrown instanceof HTTPError) {
      const { statusCode, headers, body } = thrown.response;
      return this.refusal({ status: statusCode, headers, body: String(body ?? '') });
    }
    return errorFromFailure(processor, thrown);
  }
}

/**
 * What a processor's answer means: 429 and 5xx may pass (transient, honouring Retry-After), any other
 * status is a refusal that repeating will not change.
 */
export function errorFromAnswer(
  processor: string,
  answer: { statusCode: number; headers: Record<string, string | string[] | undefined> },
  message: string,
  extra: { excerpt?: string; code?: string } = {},
): ProcessorError {
  const status = answer.statusCode;
  const retryable = status === 429 || status >= 500;
  const retryAfter = retryAfterSeconds(answer.headers['retry-after']);
  return new ProcessorError(processor, message, {
    retryable,
    status,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    ...extra,
  });
}

/**
 * A call that got no answer at all (timeout, refused connection, reset): always worth retrying. A call
 * that could not even be made (got's ERR_GOT_REQUEST_ERROR: a body that cannot be serialised) is ours,
 * and sending it again will not help.
 */
export function errorFromFailure(processor: string, error: unknown): ProcessorError {
  if (error instanceof ProcessorError) return error;
  const reason = error instanceof RequestError ? error.code : 'unknown error';
  if (reason === 'ERR_GOT_REQUEST_ERROR') {
    return new ProcessorError(processor, 'The call could not be made (its request could not be built).', {
      retryable: false,
    });
  }
  return new ProcessorError(processor, `The processor did not answer (${reason}).`, { retryable: true });
}

/** Retry-After as seconds, or as an HTTP date. */
function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function withoutUndefined(
  params: Record<string, string | number | boolean | undefined> | URLSearchParams,
): URLSearchParams {
  if (params instanceof URLSearchParams) return params;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  return search;
}

const elapsed = (started: number) => Math.round(performance.now() - started);
