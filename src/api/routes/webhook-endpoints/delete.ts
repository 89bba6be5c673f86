import { deleteEndpoint } from '../../../services/webhooks/endpoints.js';
import type { Endpoint } from '../../endpoint.js';
import { deletedWebhookEndpointObject } from '../../serialize.js';
import { webhookEndpointId } from '../params.js';

export const deleteWebhookEndpointEndpoint: Endpoint = {
  method: 'delete',
  path: '/webhook_endpoints/:id',
  async handle(context) {
    const endpoint = await deleteEndpoint(context.deps.db, context.caller, webhookEndpointId(context));
    return { status: 200, body: deletedWebhookEndpointObject(endpoint, context.url) };
  },
};
