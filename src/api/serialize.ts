import { type DisputeRecord, formatTimestamp, toDisputeObject } from '../domain/disputes.js';
import type { TemplateShape } from '../domain/templates.js';
import type { TemplateRow } from '../services/dispute-records.js';

/** Response bodies other than errors: the dispute object, lists, templates (API.md sections 1, 3, 6). */

export function disputeBody(found: { dispute: DisputeRecord; template: TemplateShape | null }, url: string) {
  return toDisputeObject(found.dispute, found.template, url);
}

/**
 * The list object as JSON text, around items that are JSON text already (dispute objects come serialized
 * from the DisputeObjectCache): `{object: "list", data, has_more, livemode, url}`.
 */
export function listJson(page: { data: string[]; hasMore: boolean }, livemode: boolean, url: string): string {
  const envelope = JSON.stringify({ object: 'list', data: [], has_more: page.hasMore, livemode, url });
  return envelope.replace('"data":[]', `"data":[${page.data.join(',')}]`);
}

export const templatePath = (id: string) => `/v1/templates/${id}`;

export function templateObject(template: TemplateRow, url = templatePath(template.id)) {
  return {
    object: 'template' as const,
    id: template.id,
    name: template.name,
    description: template.description,
    fields: template.fields,
    reasons: template.reasons,
    body: template.body,
    created: formatTimestamp(template.createdAt),
    updated: formatTimestamp(template.updatedAt),
    livemode: template.livemode,
    url,
  };
}

/** What DELETE answers: the template's id, marked deleted. */
export function deletedTemplateObject(template: TemplateRow, url: string) {
  return { object: 'template' as const, id: template.id, deleted: true, livemode: template.livemode, url };
}
