import { redeliverEvent } from '../../../services/webhooks/event-log.js';
import type { Endpoint } from '../../endpoint.js';
import { eventObject } from '../../serialize.js';
import { eventId } from '../params.js';

/** 202: the deliveries are restarted and on their way; follow them on GET /v1/events/:id. */
export const redeliverEventEndpoint: Endpoint = {
  method: 'post',
  path: '/events/:id/redeliver',
  async handle(context) {
    const logged = await redeliverEvent(context.deps.db, context.caller, eventId(context));
    return { status: 202, body: eventObject(logged, context.url) };
  },
};
