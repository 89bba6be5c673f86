import { createTemplateInput } from '../../../domain/templates.js';
import { createTemplate } from '../../../services/templates.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { templateObject } from '../../serialize.js';

export const createTemplateEndpoint: Endpoint = {
  method: 'post',
  path: '/templates',
  async handle({ caller, input, url, deps }) {
    const template = await createTemplate(deps.db, caller, parseInput(createTemplateInput, input));
    return { status: 201, body: templateObject(template, url) };
  },
};
