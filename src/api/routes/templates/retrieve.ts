import { templateObject } from '../../../features/templates/objects.js';
import { retrieveTemplate } from '../../../features/templates/templates.js';
import { defineEndpoint } from '../../endpoint.js';
import { templateIdParameter } from '../../inputs/params.js';

export const retrieveTemplateEndpoint = defineEndpoint({
  method: 'get',
  path: '/templates/:id',
  params: { id: templateIdParameter },
  docs: {
    operationId: 'retrieveTemplate',
    summary: 'Retrieve a template',
    success: { 200: 'The template.' },
    returns: 'template',
    errors: [['template_not_found', 404]],
  },
  async handle({ caller, params, url, deps }) {
    const template = await retrieveTemplate(deps.db, caller, params.id);
    return { status: 200, body: templateObject(template, url) };
  },
});
