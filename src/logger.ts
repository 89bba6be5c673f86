import { AsyncLocalStorage } from 'node:async_hooks';
import { type Logger, pino } from 'pino';

/** Paths never written to a log line: credentials in headers and any secret-bearing property. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'headers.authorization',
  '*.apiKey',
  '*.api_key',
  '*.key',
  '*.secret',
  '*.password',
  '*.credentials',
  '*.test_key',
  '*.live_key',
];

/**
 * The request a piece of work belongs to. The HTTP layer opens it per request; every log line written
 * inside it, by any module, carries the request id, so one grep finds all a request did.
 */
export const logContext = new AsyncLocalStorage<{ requestId: string }>();

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'rebuttal' },
      mixin: () => {
        const context = logContext.getStore();
        return context ? { request_id: context.requestId } : {};
      },
    },
    destination ?? process.stdout,
  );
}

export type { Logger };
