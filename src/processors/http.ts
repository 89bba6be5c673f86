import { type Got, got, RequestError } from 'got';
import { ProcessorError } from './types.js';

/**
 * The one way adapters reach a processor over HTTP. Retrying is the submission job's business (with its
 * backoff and the processor's Retry-After), so got itself never retries; every call has a deadline well
 * inside the job's lock (JOB_LOCK_SECONDS renews while it runs).
 */
export const processorTimeoutMs = 30_000;

export function processorClient(options: { baseUrl: string; headers?: Record<string, string> }): Got {
  return got.extend({
    prefixUrl: options.baseUrl,
    headers: { 'user-agent': 'rebuttal', ...options.headers },
    timeout: { request: processorTimeoutMs },
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
  });
}

/**
 * What a processor's answer means for the submission: 429 and 5xx may pass (retryable, honouring
 * Retry-After), any other 4xx is a refusal that repeating will not change.
 */
export function errorFromAnswer(
  processor: string,
  answer: { statusCode: number; headers: Record<string, string | string[] | undefined> },
  message: string,
): ProcessorError {
  const status = answer.statusCode;
  const retryable = status === 429 || status >= 500;
  const retryAfter = retryAfterSeconds(answer.headers['retry-after']);
  return new ProcessorError(processor, message, {
    retryable,
    status,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
  });
}

/** A call that got no answer at all (timeout, refused connection, reset): always worth retrying. */
export function errorFromFailure(processor: string, error: unknown): ProcessorError {
  const reason = error instanceof RequestError ? error.code : 'unknown error';
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
