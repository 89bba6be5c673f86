/**
 * The error catalogue of docs/api.md, "Errors": every error type the API can answer with, and its status.
 * Nothing else maps a type to a status.
 */
export const errorStatus = {
  authentication: 401,
  insecure_connection: 403,
  invalid_link: 403,
  dispute_not_found: 404,
  template_not_found: 400,
  response_not_found: 404,
  webhook_endpoint_not_found: 404,
  event_not_found: 404,
  /** Issue 20: an unknown alert id, or another organisation's or mode's (docs/api.md, "Alerts"). */
  alert_not_found: 404,
  dispute_closed: 400,
  dispute_overdue: 400,
  dispute_submitted: 400,
  dispute_uneditable: 400,
  missing_template: 400,
  missing_fields: 400,
  invalid_fields: 400,
  invalid_products: 400,
  invalid_correspondence: 400,
  invalid_past_payments: 400,
  invalid_evidence_files: 400,
  invalid_file: 400,
  file_not_found: 404,
  invalid_request: 400,
  /**
   * Issue 19: an `Idempotency-Key` sent before with another request, or whose first request changed data
   * and lost its answer (docs/api.md, "Idempotent requests").
   */
  idempotency_error: 400,
  not_found: 404,
  method_not_allowed: 405,
  /** Issue 19: the first request with the same `Idempotency-Key` is still running. */
  idempotency_in_progress: 409,
  request_too_large: 413,
  rate_limited: 429,
  processor_error: 502,
  server_error: 500,
  /**
   * Decided with issue 5: a processor's push for a paused account, to be sent again later. Issue 13: any
   * request while Postgres is unreachable or does not answer (`databaseUnavailable`).
   */
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorType = keyof typeof errorStatus;

/** Which error type a bad value under each evidence parameter answers with (docs/api.md, "The dispute object"). */
export const evidenceErrors = {
  fields: 'invalid_fields',
  products: 'invalid_products',
  correspondence: 'invalid_correspondence',
  past_payments: 'invalid_past_payments',
  evidence_files: 'invalid_evidence_files',
} as const satisfies Record<string, ErrorType>;

export class ApiError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  /** Sent as `Retry-After` (seconds). */
  retryAfterSeconds: number | undefined;

  /** `status` overrides the catalogue only where the contract gives one type two statuses (template_not_found). */
  constructor(type: ErrorType, message: string, status?: number) {
    super(message);
    this.name = 'ApiError';
    this.type = type;
    this.status = status ?? errorStatus[type];
  }
}

/** Seconds a client waits before trying again while Postgres is away: a restart takes a few. */
const databaseRetrySeconds = 2;

/**
 * Postgres unreachable or silent (db/unavailable.ts). A request that writes may have been applied even
 * so (the connection can die after COMMIT was sent), so its message says the outcome is not known.
 */
export function databaseUnavailable(writes: boolean): ApiError {
  const error = new ApiError(
    'unavailable',
    writes
      ? 'The service could not reach its database, or it did not answer in time, so whether this request took effect is not known; retrieve the object before sending it again.'
      : 'The service could not reach its database, or it did not answer in time; try again shortly.',
  );
  error.retryAfterSeconds = databaseRetrySeconds;
  return error;
}

export const notFound = {
  dispute: (id: string) => new ApiError('dispute_not_found', `No dispute with id '${id}'.`),
  /** On the templates endpoints the template is the resource (404); named by a dispute it is a bad parameter (400). */
  template: (id: string, asParameter: boolean) =>
    new ApiError('template_not_found', `No template with id '${id}'.`, asParameter ? 400 : 404),
  webhookEndpoint: (id: string) =>
    new ApiError('webhook_endpoint_not_found', `No webhook endpoint with id '${id}'.`),
  event: (id: string) => new ApiError('event_not_found', `No event with id '${id}'.`),
  file: (id: string) => new ApiError('file_not_found', `No file with id '${id}'.`),
  alert: (id: string) => new ApiError('alert_not_found', `No alert with id '${id}'.`),
};
