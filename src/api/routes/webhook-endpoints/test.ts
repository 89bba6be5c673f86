import { recordTestEvent } from '../../../services/webhooks/endpoints.js';
import { retrieveEvent } from '../../../services/webhooks/event-log.js';
import type { Endpoint } from '../../endpoint.js';
import { eventObject } from '../../serialize.js';
import { webhookEndpointId } from '../params.js';

/** 202: the test event is recorded and on its way; its delivery shows on GET /v1/events/:id. */
export const testWebhookEndpointEndpoint: Endpoint = {
  method: 'post',
  path: '/webhook_endpoints/:id/test',
  async handle(context) {
    const eventId = await recordTestEvent(context.deps.db, context.caller, webhookEndpointId(context));
    const logged = await retrieveEvent(context.deps.db, context.caller, eventId);
    return { status: 202, body: eventObject(logged, context.url) };
  },
};
