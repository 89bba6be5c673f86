import { formatTimestamp } from '../../domain/disputes.js';
import type { TemplateRow } from '../disputes/records.js';

/**
 * The template object as the API answers it and the CLI prints it (docs/api.md, "Templates and response
 * documents").
 */

const templatePath = (id: string) => `/v1/templates/${id}`;

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
