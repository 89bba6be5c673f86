import { deletedTemplateObject } from '../../../features/templates/objects.js';
import { deleteTemplate } from '../../../features/templates/templates.js';
import { defineEndpoint } from '../../endpoint.js';
import { templateIdParameter } from '../../inputs/params.js';

export const deleteTemplateEndpoint = defineEndpoint({
  method: 'delete',
  path: '/templates/:id',
  params: { id: templateIdParameter },
  docs: {
    operationId: 'deleteTemplate',
    summary: 'Delete a template (disputes naming it keep the name)',
    success: { 200: 'Deleted.' },
    returns: 'deletedTemplate',
    errors: [['template_not_found', 404]],
  },
  async handle({ caller, params, url, deps }) {
    const template = await deleteTemplate(deps.db, caller, params.id);
    return { status: 200, body: deletedTemplateObject(template, url) };
  },
});
