import { z } from 'zod';
import { type ApiError, notFound } from '../../domain/errors.js';
import { idPattern, integer, resourceId } from '../../domain/values.js';
import { idPrefixes } from '../../ids.js';
import type { PathParameter } from '../endpoint.js';

/**
 * The `:id` of each kind of path. An id outside its schema cannot exist, so it is simply not found, with the
 * resource's own error type.
 */

const clientId = resourceId.meta({ description: 'Client- or processor-chosen id.' });

export const disputeIdParameter: PathParameter = { schema: clientId, notFound: notFound.dispute };

export const templateIdParameter: PathParameter = {
  schema: clientId,
  notFound: (id) => notFound.template(id, false),
};

/** An alert's id is its processor's (docs/api.md, "Alerts"). */
export const alertIdParameter: PathParameter = { schema: clientId, notFound: notFound.alert };

/** An id this service minted (`we_…`, `evt_…`). */
function mintedId(prefix: string, description: string, unknown: (id: string) => ApiError): PathParameter {
  const schema = z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{20}$`));
  return { schema: schema.meta({ description }), notFound: unknown };
}

export const webhookEndpointIdParameter = mintedId(
  idPrefixes.webhookEndpoint,
  'A `we_…` id.',
  notFound.webhookEndpoint,
);
export const eventIdParameter = mintedId(idPrefixes.event, 'An `evt_…` id.', notFound.event);
export const fileIdParameter = mintedId(idPrefixes.file, 'A `file_…` id.', notFound.file);

/** Paging parameters of every list (docs/api.md, "Endpoints"): both cursors at once is a bad request. */
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
