import { deleteTemplate } from '../../../services/templates.js';
import type { Endpoint } from '../../endpoint.js';
import { templateId } from '../params.js';

export const deleteTemplateEndpoint: Endpoint = {
  method: 'delete',
  path: '/templates/:id',
  async handle(context) {
    const template = await deleteTemplate(context.deps.db, context.caller, templateId(context));
    return {
      status: 200,
      body: {
        object: 'template',
        id: template.id,
        deleted: true,
        livemode: template.livemode,
        url: context.url,
      },
    };
  },
};
