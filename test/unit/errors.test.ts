import { describe, expect, it } from 'vitest';
import { ApiError, type ErrorType, errorStatus, evidenceErrors, notFound } from '../../src/domain/errors.js';

/** docs/api.md, "Errors", written from the contract. template_not_found has two statuses (see section 6). */
const contract: Record<string, number | readonly [number, number]> = {
  authentication: 401,
  insecure_connection: 403,
  // Decided with issue 4: a tampered or expired document link (docs/api.md, "Templates and response documents").
  invalid_link: 403,
  dispute_not_found: 404,
  template_not_found: [400, 404],
  response_not_found: 404,
  webhook_endpoint_not_found: 404,
  event_not_found: 404,
  // Decided with issue 20: an unknown alert id (docs/api.md, "Alerts").
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
  // Issue 20: POST /v1/alerts/:id/refund (docs/api.md, "Refunds").
  invalid_request: 400,
  // Decided with issue 19 (docs/api.md, "Idempotent requests").
  idempotency_error: 400,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_in_progress: 409,
  request_too_large: 413,
  rate_limited: 429,
  processor_error: 502,
  server_error: 500,
  // Decided with issue 5: a processor's push for a paused account (docs/operations.md, "Processors").
  unavailable: 503,
};

const singleStatus = Object.entries(contract).filter(
  (entry): entry is [ErrorType, number] => typeof entry[1] === 'number',
);

describe('the error catalogue (docs/api.md, "Errors")', () => {
  it('has exactly the error types of the contract', () => {
    expect(Object.keys(errorStatus).sort()).toEqual(Object.keys(contract).sort());
  });

  it.each(singleStatus)('maps %s to %i', (type, status) => {
    expect(errorStatus[type]).toBe(status);
  });

  it.each(singleStatus)('an ApiError of type %s has status %i', (type, status) => {
    const error = new ApiError(type, 'message');
    expect(error.status).toBe(status);
    expect(error.type).toBe(type);
  });

  it('maps template_not_found to one of its two contract statuses, 400 or 404', () => {
    expect([400, 404]).toContain(errorStatus.template_not_found);
  });
});

describe('ApiError', () => {
  it('is an Error carrying its message, type and status', () => {
    const error = new ApiError('invalid_request', 'limit must be 1-100');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error.message).toBe('limit must be 1-100');
    expect(error.type).toBe('invalid_request');
    expect(error.status).toBe(400);
  });

  it('takes an explicit status over the catalogue', () => {
    expect(new ApiError('template_not_found', 'gone', 404).status).toBe(404);
  });
});

describe('notFound', () => {
  it('gives 404 dispute_not_found for an unknown dispute, naming the id', () => {
    const error = notFound.dispute('dp_missing');
    expect(error).toMatchObject({ type: 'dispute_not_found', status: 404 });
    expect(error.message).toContain('dp_missing');
  });

  it('gives 400 template_not_found when a dispute names an unknown template', () => {
    const error = notFound.template('tpl_missing', true);
    expect(error).toMatchObject({ type: 'template_not_found', status: 400 });
    expect(error.message).toContain('tpl_missing');
  });

  it('gives 404 template_not_found on the templates endpoints', () => {
    const error = notFound.template('tpl_missing', false);
    expect(error).toMatchObject({ type: 'template_not_found', status: 404 });
    expect(error.message).toContain('tpl_missing');
  });
});

describe('evidence error types (docs/api.md, "The dispute object")', () => {
  it('give each evidence parameter its own error type', () => {
    expect(evidenceErrors).toEqual({
      fields: 'invalid_fields',
      products: 'invalid_products',
      correspondence: 'invalid_correspondence',
      past_payments: 'invalid_past_payments',
      evidence_files: 'invalid_evidence_files',
    });
  });
});
