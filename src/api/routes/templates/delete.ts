import { deleteTemplate } from '../../../services/templates.js';
import type { Endpoint } from '../../endpoint.js';
import { deletedTemplateObject } from '../../serialize.js';
import { templateId } from '../params.js';

export const deleteTemplateEndpoint: Endpoint = {
  method: 'delete',
  path: '/templates/:id',
  async handle(context) {
    const template = await deleteTemplate(context.deps.db, context.caller, templateId(context));
    return { status: 200, body: deletedTemplateObject(template, context.url) };
  },
};
