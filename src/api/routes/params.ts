import { z } from 'zod';
import { type ApiError, notFound } from '../../domain/errors.js';
import { idPattern, integer } from '../../domain/params.js';
import { idPrefixes } from '../../ids.js';
import type { RequestContext } from '../endpoint.js';

/** The `:id` of a dispute path; an id that cannot exist is simply not found. */
export function disputeId(context: RequestContext): string {
  const id = context.params.id ?? '';
  if (!idPattern.test(id)) throw notFound.dispute(id.slice(0, 255));
  return id;
}

export function templateId(context: RequestContext): string {
  const id = context.params.id ?? '';
  if (!idPattern.test(id)) throw notFound.template(id.slice(0, 255), false);
  return id;
}

/** The `:id` of a path naming an id this service minted (`we_…`, `evt_…`): anything else is not found. */
function mintedId(prefix: string, unknown: (id: string) => ApiError) {
  const pattern = new RegExp(`^${prefix}_[0-9a-z]{20}$`);
  return (context: RequestContext): string => {
    const id = context.params.id ?? '';
    if (!pattern.test(id)) throw unknown(id.slice(0, 255));
    return id;
  };
}

export const webhookEndpointId = mintedId(idPrefixes.webhookEndpoint, notFound.webhookEndpoint);
export const eventId = mintedId(idPrefixes.event, notFound.event);

/** Paging parameters of every list (API.md section 4): both cursors at once is a bad request. */
export const pageParams = z
  .object({
    limit: integer.pipe(z.number().min(1, 'must be 1 to 100').max(100, 'must be 1 to 100')).default(20),
    starting_after: z.string().regex(idPattern, 'is not an id').optional(),
    ending_before: z.string().regex(idPattern, 'is not an id').optional(),
  })
  .refine((page) => page.starting_after === undefined || page.ending_before === undefined, {
    message: 'send starting_after or ending_before, not both',
    path: ['ending_before'],
  });

export const toPageQuery = (page: z.infer<typeof pageParams>) => ({
  limit: page.limit,
  ...(page.starting_after !== undefined && { startingAfter: page.starting_after }),
  ...(page.ending_before !== undefined && { endingBefore: page.ending_before }),
});
