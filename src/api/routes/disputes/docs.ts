import type { ErrorAnswer } from '../../endpoint.js';

/**
 * Documentation the dispute endpoints share (api/openapi.ts). The evidence parameters' own error types
 * (invalid_fields, ...) come from each input's `errorTypes`; a template the evidence names that does not
 * exist is a bad parameter here, hence 400.
 */

export const templateAnswer: ErrorAnswer = ['template_not_found', 400];

export const submitAnswers: readonly ErrorAnswer[] = [
  'missing_template',
  'missing_fields',
  'dispute_overdue',
  'processor_error',
];

export const stateAnswers: readonly ErrorAnswer[] = [
  'dispute_closed',
  'dispute_submitted',
  'dispute_uneditable',
];

/** PUT, POST /disputes/:id and POST /disputes/:id/submit take the same evidence. */
export const evidenceUpdate =
  'Evidence and template; `fields` merge (`null` or `""` removes a key), arrays replace.';
