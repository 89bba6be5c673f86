import { retrieveEvent } from '../../../services/webhooks/event-log.js';
import type { Endpoint } from '../../endpoint.js';
import { eventObject } from '../../serialize.js';
import { eventId } from '../params.js';

export const retrieveEventEndpoint: Endpoint = {
  method: 'get',
  path: '/events/:id',
  async handle(context) {
    const logged = await retrieveEvent(context.deps.db, context.caller, eventId(context));
    return { status: 200, body: eventObject(logged, context.url) };
  },
};
