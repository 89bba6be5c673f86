import { retrieveEvent } from '../../../features/webhooks/event-log.js';
import { eventObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { eventIdParameter } from '../../inputs/params.js';

export const retrieveEventEndpoint = defineEndpoint({
  method: 'get',
  path: '/events/:id',
  params: { id: eventIdParameter },
  docs: {
    operationId: 'retrieveEvent',
    summary: 'Retrieve an event with its deliveries',
    success: { 200: 'The event.' },
    returns: 'event',
    errors: ['event_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const logged = await retrieveEvent(deps.db, caller, params.id);
    return { status: 200, body: eventObject(logged, url) };
  },
});
