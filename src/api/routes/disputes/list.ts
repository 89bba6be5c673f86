import { z } from 'zod';
import { disputePath } from '../../../domain/disputes.js';
import { text } from '../../../domain/params.js';
import { disputeStates } from '../../../domain/states.js';
import { listDisputes } from '../../../services/disputes.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { disputeBody, listBody } from '../../serialize.js';
import { pageParams, toPageQuery } from '../params.js';

export const listDisputesQuery = pageParams.and(
  z.object({
    /** Repeatable: `state=a&state=b` (or `state[]=a`). */
    state: z
      .union([z.enum(disputeStates), z.array(z.enum(disputeStates)).max(disputeStates.length)])
      .optional(),
    account: text(255).optional(),
  }),
);

export const listDisputesEndpoint: Endpoint = {
  method: 'get',
  path: '/disputes',
  async handle({ caller, input, url, deps }) {
    const query = parseInput(listDisputesQuery, input);
    const page = await listDisputes(deps.db, caller, {
      ...toPageQuery(query),
      ...(query.state !== undefined && { states: [query.state].flat() }),
      ...(query.account !== undefined && { account: query.account }),
    });
    return {
      status: 200,
      body: listBody(page, caller.livemode, url, (row) => disputeBody(row, disputePath(row.dispute.id))),
    };
  },
};
