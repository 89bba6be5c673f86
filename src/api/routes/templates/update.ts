import { templateInput } from '../../../domain/templates.js';
import { updateTemplate } from '../../../services/templates.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { templateObject } from '../../serialize.js';
import { templateId } from '../params.js';

export const updateTemplateEndpoint: Endpoint = {
  method: 'put',
  path: '/templates/:id',
  async handle(context) {
    const id = templateId(context);
    const template = await updateTemplate(
      context.deps.db,
      context.caller,
      id,
      parseInput(templateInput, context.input),
    );
    return { status: 200, body: templateObject(template, context.url) };
  },
};
