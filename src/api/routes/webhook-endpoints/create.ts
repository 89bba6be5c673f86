import { createEndpoint } from '../../../features/webhooks/endpoints.js';
import { webhookEndpointObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { createEndpointInput } from '../../inputs/webhook-endpoints.js';

/** With rotate_secret, the one answer that carries the signing secret. */
export const createWebhookEndpointEndpoint = defineEndpoint({
  method: 'post',
  path: '/webhook_endpoints',
  // WEBHOOK_ALLOW_PRIVATE takes plain http URLs too.
  input: { body: (settings) => createEndpointInput(settings.allowPrivateWebhooks) },
  docs: {
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint; the answer carries its signing secret, shown this once',
    success: { 201: 'Created, with `secret`.' },
    returns: 'webhookEndpoint',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const { endpoint, secret } = await createEndpoint(deps, caller, input);
    return { status: 201, body: webhookEndpointObject(endpoint, url, secret) };
  },
});
