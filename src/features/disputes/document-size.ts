import { type DocumentLimits, documentSizeProblem, measureDocument } from '../../domain/document-size.js';
import type { ApiError } from '../../domain/errors.js';
import type { DisputeRow, TemplateRow } from './records.js';

/**
 * Whether the response document of this dispute with this template would be over the limits
 * (docs/api.md, "The size of the response document"): asked wherever evidence or a template is saved
 * for a dispute, and when a queued dispute's moment comes, so that an oversized document is refused
 * before it is queued; the runner measures once more before it renders (features/responses/documents.ts).
 */
export function documentProblem(
  dispute: DisputeRow,
  template: TemplateRow | null,
  limits: DocumentLimits,
  at: Date,
): ApiError | null {
  return documentSizeProblem(measureDocument({ dispute, template, generatedAt: at }), limits);
}
