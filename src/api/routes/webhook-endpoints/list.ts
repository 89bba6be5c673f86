import { listEndpoints } from '../../../features/webhooks/endpoints.js';
import { webhookEndpointObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { pageParams, toPageQuery } from '../../inputs/params.js';
import { listJson } from '../../serialize.js';

export const listWebhookEndpointsEndpoint = defineEndpoint({
  method: 'get',
  path: '/webhook_endpoints',
  input: { query: pageParams },
  docs: {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first',
    success: { 200: 'A page of webhook endpoints.' },
    returns: 'webhookEndpointList',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const page = await listEndpoints(deps.db, caller, toPageQuery(input));
    const data = page.data.map((endpoint) => JSON.stringify(webhookEndpointObject(endpoint)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
});
