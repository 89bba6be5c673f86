import { redeliverEvent } from '../../../features/webhooks/event-log.js';
import { eventObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { eventIdParameter } from '../../inputs/params.js';

/** 202: the deliveries are restarted and on their way; follow them on GET /v1/events/:id. */
export const redeliverEventEndpoint = defineEndpoint({
  method: 'post',
  path: '/events/:id/redeliver',
  params: { id: eventIdParameter },
  docs: {
    operationId: 'redeliverEvent',
    summary: 'Send an event again: its deliveries restart',
    success: { 202: 'The event, its deliveries restarted.' },
    returns: 'event',
    errors: ['event_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const logged = await redeliverEvent(deps.db, caller, params.id);
    return { status: 202, body: eventObject(logged, url) };
  },
});
