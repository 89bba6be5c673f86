import { certificateFailures } from '../certificate-failures.js';
import { Failure } from '../domain/failure.js';

/**
 * Postgres could not be reached, or did not answer in time, while a request waited on it (db/bounded.ts
 * raises it). The API answers it with 503 `unavailable`, never 500: nothing is wrong with the request.
 * What the database did with it is not known (the connection may have died after COMMIT was sent), so
 * nothing that reports it may claim that nothing was written.
 */
export class DatabaseUnavailable extends Failure {
  override readonly name = 'DatabaseUnavailable';
  readonly permanent = false;
}

/** Socket failures, and postgres-js's own: a connection that could not be made or was lost. */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * SQLSTATEs of a server that is going or not there yet: admin_shutdown (a restart), crash_shutdown,
 * cannot_connect_now (starting up), too_many_connections; class 08 is connection exceptions (PgBouncer
 * answers its own failures, a full pool's query_wait_timeout among them, with 08P01). And
 * invalid_sql_statement_name: a prepared statement a pooler's other server connection does not have
 * (src/db/pooler.ts), which the next try prepares again.
 */
const unavailableStates = new Set(['57P01', '57P02', '57P03', '53300', '26000']);

/**
 * Whether a driver error says the database is away rather than that the statement was wrong. A
 * certificate refused on a new connection (the server's rotated to an untrusted CA) is one too: the start
 * refuses it with a line of its own (db/tls.ts), a running process answers 503 until it is fixed.
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return false;
  return (
    connectionCodes.has(code) ||
    unavailableStates.has(code) ||
    /^08[0-9A-Z]{3}$/.test(code) ||
    Object.hasOwn(certificateFailures, code)
  );
}

/** The DatabaseUnavailable that `error` is or wraps (drizzle wraps a driver's error as its cause). */
export function databaseUnavailableIn(error: unknown): DatabaseUnavailable | undefined {
  for (let depth = 0; depth < 5 && error instanceof Error; depth++) {
    if (error instanceof DatabaseUnavailable) return error;
    error = error.cause;
  }
  return undefined;
}

export const isDatabaseUnavailable = (error: unknown): boolean => databaseUnavailableIn(error) !== undefined;
