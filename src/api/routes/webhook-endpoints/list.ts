import { listEndpoints } from '../../../services/webhooks/endpoints.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { listJson, webhookEndpointObject } from '../../serialize.js';
import { pageParams, toPageQuery } from '../params.js';

export const listWebhookEndpointsEndpoint: Endpoint = {
  method: 'get',
  path: '/webhook_endpoints',
  async handle({ caller, input, url, deps }) {
    const page = await listEndpoints(deps.db, caller, toPageQuery(parseInput(pageParams, input)));
    const data = page.data.map((endpoint) => JSON.stringify(webhookEndpointObject(endpoint)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
};
