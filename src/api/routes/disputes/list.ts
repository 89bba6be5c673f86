import { countDisputes } from '../../../features/disputes/list.js';
import { defineEndpoint } from '../../endpoint.js';
import { listDisputesQuery, toDisputeFilters } from '../../inputs/dispute-list.js';
import { toPageQuery } from '../../inputs/params.js';
import { listJson } from '../../serialize.js';

/**
 * What `include[]=total_count` costs of the key's rate limit for each dispute it counts, as if the answer
 * held that many bytes: a count reads every matching dispute (a million in 150–330 ms of Postgres: docs/architecture.md, "Dispute search"), so a
 * key cannot keep the database busy counting (docs/api.md, "Limits").
 */
export const countCostBytesPerDispute = 16;

export const listDisputesEndpoint = defineEndpoint({
  method: 'get',
  path: '/disputes',
  input: { query: listDisputesQuery },
  docs: {
    operationId: 'listDisputes',
    summary: 'List disputes, newest first',
    description:
      'Filters combine: a dispute is listed when it passes every filter given. Unknown parameters are ignored.',
    success: { 200: 'A page of disputes.' },
    returns: 'disputeList',
    errors: [],
  },
  async handle({ caller, input: query, url, deps }) {
    const filters = toDisputeFilters(query);
    const [page, counts] = await Promise.all([
      deps.disputeObjects.list(deps.db, caller, { ...toPageQuery(query), filters }),
      [query.include ?? []].flat().includes('total_count')
        ? countDisputes(deps.db, caller, filters)
        : undefined,
    ]);
    const totals = counts && { total_count: counts.total, count_by_state: counts.byState };
    return {
      status: 200,
      json: listJson(page, caller.livemode, url, totals),
      costBytes: (counts?.total ?? 0) * countCostBytesPerDispute,
    };
  },
});
