import { retrieveEndpoint } from '../../../services/webhooks/endpoints.js';
import type { Endpoint } from '../../endpoint.js';
import { webhookEndpointObject } from '../../serialize.js';
import { webhookEndpointId } from '../params.js';

export const retrieveWebhookEndpointEndpoint: Endpoint = {
  method: 'get',
  path: '/webhook_endpoints/:id',
  async handle(context) {
    const endpoint = await retrieveEndpoint(context.deps.db, context.caller, webhookEndpointId(context));
    return { status: 200, body: webhookEndpointObject(endpoint, context.url) };
  },
};
