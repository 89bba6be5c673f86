import { listTemplates } from '../../../services/templates.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { listBody, templateObject } from '../../serialize.js';
import { pageParams, toPageQuery } from '../params.js';

export const listTemplatesEndpoint: Endpoint = {
  method: 'get',
  path: '/templates',
  async handle({ caller, input, url, deps }) {
    const page = await listTemplates(deps.db, caller, toPageQuery(parseInput(pageParams, input)));
    return {
      status: 200,
      body: listBody(page, caller.livemode, url, (template) => templateObject(template)),
    };
  },
};
