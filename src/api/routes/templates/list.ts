import { templateObject } from '../../../features/templates/objects.js';
import { listTemplates } from '../../../features/templates/templates.js';
import { defineEndpoint } from '../../endpoint.js';
import { pageParams, toPageQuery } from '../../inputs/params.js';
import { listJson } from '../../serialize.js';

export const listTemplatesEndpoint = defineEndpoint({
  method: 'get',
  path: '/templates',
  input: { query: pageParams },
  docs: {
    operationId: 'listTemplates',
    summary: 'List templates, newest first',
    success: { 200: 'A page of templates.' },
    returns: 'templateList',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const page = await listTemplates(deps.db, caller, toPageQuery(input));
    const data = page.data.map((template) => JSON.stringify(templateObject(template)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
});
