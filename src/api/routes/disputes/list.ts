import { z } from 'zod';
import { disputeStates } from '../../../domain/states.js';
import { text } from '../../../domain/values.js';
import { defineEndpoint } from '../../endpoint.js';
import { pageParams, toPageQuery } from '../../inputs/params.js';
import { listJson } from '../../serialize.js';

const listDisputesQuery = pageParams.and(
  z.object({
    /** Repeatable: `state=a&state=b` (or `state[]=a`). */
    state: z
      .union([z.enum(disputeStates), z.array(z.enum(disputeStates)).max(disputeStates.length)])
      .optional(),
    account: text(255).optional(),
  }),
);

export const listDisputesEndpoint = defineEndpoint({
  method: 'get',
  path: '/disputes',
  input: { query: listDisputesQuery },
  docs: {
    operationId: 'listDisputes',
    summary: 'List disputes, newest first',
    success: { 200: 'A page of disputes.' },
    returns: 'disputeList',
    errors: [],
  },
  async handle({ caller, input: query, url, deps }) {
    const page = await deps.disputeObjects.list(deps.db, caller, {
      ...toPageQuery(query),
      ...(query.state !== undefined && { states: [query.state].flat() }),
      ...(query.account !== undefined && { account: query.account }),
    });
    return { status: 200, json: listJson(page, caller.livemode, url) };
  },
});
