import { updateEndpointInput } from '../../../domain/webhooks.js';
import { updateEndpoint } from '../../../services/webhooks/endpoints.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { webhookEndpointObject } from '../../serialize.js';
import { webhookEndpointId } from '../params.js';

export const updateWebhookEndpointEndpoint: Endpoint = {
  method: 'put',
  path: '/webhook_endpoints/:id',
  async handle(context) {
    const id = webhookEndpointId(context);
    const input = parseInput(updateEndpointInput(context.deps.allowPrivateWebhooks), context.input);
    const endpoint = await updateEndpoint(context.deps.db, context.caller, id, input);
    return { status: 200, body: webhookEndpointObject(endpoint, context.url) };
  },
};
