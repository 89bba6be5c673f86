import { templateInput } from '../../../domain/templates.js';
import { templateObject } from '../../../features/templates/objects.js';
import { updateTemplate } from '../../../features/templates/templates.js';
import { defineEndpoint } from '../../endpoint.js';
import { templateIdParameter } from '../../inputs/params.js';

export const updateTemplateEndpoint = defineEndpoint({
  method: 'put',
  path: '/templates/:id',
  params: { id: templateIdParameter },
  input: { body: templateInput },
  docs: {
    operationId: 'updateTemplate',
    summary: 'Update a template',
    success: { 200: 'Updated.' },
    returns: 'template',
    errors: [['template_not_found', 404]],
  },
  async handle({ caller, params, input, url, deps }) {
    const template = await updateTemplate(deps.db, caller, params.id, input, deps.documentLimits);
    return { status: 200, body: templateObject(template, url) };
  },
});
