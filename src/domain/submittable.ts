import { type DisputeRecord, fillingAttributes, formatTimestamp } from './disputes.js';
import { ApiError, notFound } from './errors.js';
import { missingFields, type TemplateShape } from './templates.js';

/**
 * Why the dispute cannot be submitted as it stands, or null when it can (docs/api.md, "States and actions"): it needs a
 * template that exists, every field the template requires, and its deadline still ahead. Asked by submit
 * and queue requests, by a queued dispute when its moment comes, and by an operator's retry.
 */
export function submitProblem(
  dispute: DisputeRecord & { template: string | null; dueBy: Date | null },
  template: TemplateShape | null,
  at: Date,
): ApiError | null {
  if (!dispute.template)
    return new ApiError('missing_template', 'A template is required to submit a dispute.');
  if (!template) return notFound.template(dispute.template, true);
  const missing = missingFields(template, dispute.fields, fillingAttributes(dispute));
  const keys = Object.keys(missing);
  if (keys.length > 0) {
    const list = keys.map((key) => `${key} (${missing[key]})`).join(', ');
    return new ApiError('missing_fields', `Missing required fields: ${list}.`);
  }
  if (dispute.dueBy && dispute.dueBy.getTime() <= at.getTime()) {
    return new ApiError('dispute_overdue', `The dispute was due by ${formatTimestamp(dispute.dueBy)}.`);
  }
  return null;
}
