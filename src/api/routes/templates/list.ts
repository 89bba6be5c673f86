import { listTemplates } from '../../../services/templates.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { listJson, templateObject } from '../../serialize.js';
import { pageParams, toPageQuery } from '../params.js';

export const listTemplatesEndpoint: Endpoint = {
  method: 'get',
  path: '/templates',
  async handle({ caller, input, url, deps }) {
    const page = await listTemplates(deps.db, caller, toPageQuery(parseInput(pageParams, input)));
    const data = page.data.map((template) => JSON.stringify(templateObject(template)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
};
