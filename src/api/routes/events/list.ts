import { z } from 'zod';
import { eventTypes } from '../../../domain/webhooks.js';
import { listEvents } from '../../../features/webhooks/event-log.js';
import { eventObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { pageParams, toPageQuery } from '../../inputs/params.js';
import { listJson } from '../../serialize.js';

const listEventsQuery = pageParams.and(z.object({ type: z.enum(eventTypes).optional() }));

/** Newest first, like every list; `type` narrows it to one event kind. */
export const listEventsEndpoint = defineEndpoint({
  method: 'get',
  path: '/events',
  input: { query: listEventsQuery },
  docs: {
    operationId: 'listEvents',
    summary: 'The event log, newest first',
    success: { 200: 'A page of events.' },
    returns: 'eventList',
    errors: [],
  },
  async handle({ caller, input: query, url, deps }) {
    const page = await listEvents(deps.db, caller, {
      ...toPageQuery(query),
      ...(query.type !== undefined && { type: query.type }),
    });
    const data = page.data.map((logged) => JSON.stringify(eventObject(logged)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
});
