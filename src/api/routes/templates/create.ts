import { createTemplateInput } from '../../../domain/templates.js';
import { templateObject } from '../../../features/templates/objects.js';
import { createTemplate } from '../../../features/templates/templates.js';
import { defineEndpoint } from '../../endpoint.js';

export const createTemplateEndpoint = defineEndpoint({
  method: 'post',
  path: '/templates',
  input: { body: createTemplateInput },
  docs: {
    operationId: 'createTemplate',
    summary: 'Create a template',
    success: { 201: 'Created.' },
    returns: 'template',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const template = await createTemplate(deps.db, caller, input, deps.documentLimits);
    return { status: 201, body: templateObject(template, url) };
  },
});
