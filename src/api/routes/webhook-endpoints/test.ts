import { recordTestEvent } from '../../../features/webhooks/endpoints.js';
import { eventObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { webhookEndpointIdParameter } from '../../inputs/params.js';

/** 202: the test event is recorded and on its way; its delivery shows on GET /v1/events/:id. */
export const testWebhookEndpointEndpoint = defineEndpoint({
  method: 'post',
  path: '/webhook_endpoints/:id/test',
  params: { id: webhookEndpointIdParameter },
  docs: {
    operationId: 'testWebhookEndpoint',
    summary: 'Record a `test` event and send it to this endpoint only',
    success: { 202: 'The test event, its delivery on its way.' },
    returns: 'event',
    errors: ['webhook_endpoint_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const logged = await recordTestEvent(deps.db, caller, params.id);
    return { status: 202, body: eventObject(logged, url) };
  },
});
