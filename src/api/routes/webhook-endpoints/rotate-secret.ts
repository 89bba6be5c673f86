import { rotateSecret } from '../../../features/webhooks/endpoints.js';
import { webhookEndpointObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { webhookEndpointIdParameter } from '../../inputs/params.js';

/** With create, the one answer that carries a signing secret. */
export const rotateWebhookEndpointSecretEndpoint = defineEndpoint({
  method: 'post',
  path: '/webhook_endpoints/:id/rotate_secret',
  params: { id: webhookEndpointIdParameter },
  docs: {
    operationId: 'rotateWebhookEndpointSecret',
    summary:
      'Give a webhook endpoint a new signing secret, shown this once; the old one keeps signing beside it for 24 hours',
    success: { 200: 'Rotated, with the new `secret`.' },
    returns: 'webhookEndpoint',
    errors: ['webhook_endpoint_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const { endpoint, secret } = await rotateSecret(deps, caller, params.id);
    return { status: 200, body: webhookEndpointObject(endpoint, url, secret) };
  },
});
