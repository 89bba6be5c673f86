import { z } from 'zod';
import { eventTypes } from '../../../domain/webhooks.js';
import { listEvents } from '../../../services/webhooks/event-log.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { eventObject, listJson } from '../../serialize.js';
import { pageParams, toPageQuery } from '../params.js';

export const listEventsQuery = pageParams.and(z.object({ type: z.enum(eventTypes).optional() }));

/** Newest first, like every list; `type` narrows it to one event kind. */
export const listEventsEndpoint: Endpoint = {
  method: 'get',
  path: '/events',
  async handle({ caller, input, url, deps }) {
    const query = parseInput(listEventsQuery, input);
    const page = await listEvents(deps.db, caller, {
      ...toPageQuery(query),
      ...(query.type !== undefined && { type: query.type }),
    });
    const data = page.data.map((logged) => JSON.stringify(eventObject(logged)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
};
