import { retrieveTemplate } from '../../../services/templates.js';
import type { Endpoint } from '../../endpoint.js';
import { templateObject } from '../../serialize.js';
import { templateId } from '../params.js';

export const retrieveTemplateEndpoint: Endpoint = {
  method: 'get',
  path: '/templates/:id',
  async handle(context) {
    const template = await retrieveTemplate(context.deps.db, context.caller, templateId(context));
    return { status: 200, body: templateObject(template, context.url) };
  },
};
