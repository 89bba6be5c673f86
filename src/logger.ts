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
 * The request or submission a piece of work belongs to. The HTTP layer opens it per request, a submission
 * run per submission; every log line written inside it, by any module (a processor call's guard, say),
 * carries the ids, so one grep finds all a request or a submission did.
 */
export const logContext = new AsyncLocalStorage<{ requestId?: string; submissionId?: string }>();

/** Runs `work` with `ids` added to the log context it is in. */
export function withLogContext<T>(ids: { submissionId: string }, work: () => T): T {
  return logContext.run({ ...logContext.getStore(), ...ids }, work);
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'rebuttal' },
      mixin: () => {
        const context = logContext.getStore();
        return {
          ...(context?.requestId && { request_id: context.requestId }),
          ...(context?.submissionId && { submission_id: context.submissionId }),
        };
      },
    },
    destination ?? process.stdout,
  );
}

export type { Logger };

/**
 * An error as a log line may carry it. A failed query's error holds the query's parameters (customers'
 * names and evidence, key hashes) in its message, so for those only the SQL text and the database's
 * classification are kept: SQLSTATE code, routine, and the table, column or constraint involved.
 */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const details = error as Error & Record<string, unknown>;
  // The class, not `name`: drizzle's query errors keep the name 'Error'.
  const type = (error.constructor as { name?: string } | undefined)?.name ?? error.name;
  if ('params' in details && 'query' in details) {
    return { type, query: details.query, cause: describeError(details.cause) };
  }
  if (type === 'PostgresError') {
    const { code, routine, table_name: table, column_name: column, constraint_name: constraint } = details;
    return { type, code, routine, table, column, constraint };
  }
  return { type, message: error.message, stack: error.stack };
}
