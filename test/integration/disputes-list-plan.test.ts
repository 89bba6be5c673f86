import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { disputes } from '../../src/db/schema/index.js';
import { listDisputes } from '../../src/features/disputes/list.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** The SQL and parameters of every query `work` sends, as Postgres receives them. */
async function captureQueries(work: () => Promise<unknown>): Promise<{ query: string; params: unknown[] }[]> {
  const unsafe = vi.spyOn(db.sql, 'unsafe');
  try {
    await work();
    return unsafe.mock.calls.map(([query, params]) => ({ query, params: (params ?? []) as unknown[] }));
  } finally {
    unsafe.mockRestore();
  }
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

function planNodes(plan: PlanNode, parent?: PlanNode): { node: PlanNode; parent: PlanNode | undefined }[] {
  return [{ node: plan, parent }, ...(plan.Plans ?? []).flatMap((child) => planNodes(child, plan))];
}

describe('GET /v1/disputes query plan', () => {
  it('reads a page from the list index, newest first, without sorting or scanning the tenant', async () => {
    const org = await createOrganisation(db.db, { name: 'Test Org' });
    const now = Date.now();
    const rows = Array.from({ length: 5000 }, (_, index) => ({
      orgId: org.org,
      livemode: false,
      id: `dp_plan_${index}`,
      state: 'needs_response',
      reason: 'fraudulent',
      source: 'mock',
      createdAt: new Date(now - index * 1000),
    }));
    for (let start = 0; start < rows.length; start += 1000) {
      await db.db.insert(disputes).values(rows.slice(start, start + 1000));
    }
    await db.sql`analyze disputes`;
    const caller = {
      orgId: org.org,
      livemode: false,
      apiVersion: '2021-09-15',
      version: '2021-09-15',
      queueLeadMinutes: 1440,
    } as const;

    for (const query of [
      { limit: 100 },
      { limit: 100, startingAfter: 'dp_plan_200' },
      { limit: 100, endingBefore: 'dp_plan_4000' },
    ]) {
      const queries = await captureQueries(() => listDisputes(db.db, caller, query));
      const page = queries.at(-1);
      if (!page) throw new Error('listDisputes sent no query');
      const [explained] = await db.sql.unsafe(`explain (format json) ${page.query}`, page.params as never[]);
      const plans = (explained?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[];
      const plan = plans[0]?.Plan ?? {};
      const nodes = planNodes(plan);
      const reads = nodes.filter(({ node }) => node['Relation Name'] === 'disputes');
      const context = `${JSON.stringify(query)}: ${JSON.stringify(plan)}`;
      // Disputes are read only through the list index, cut off by the page's limit...
      expect(
        reads.map(({ node }) => node['Node Type']),
        context,
      ).toEqual(['Index Scan']);
      expect(reads[0]?.node['Index Name'], context).toBe('disputes_list_idx');
      expect(reads[0]?.parent?.['Node Type'], context).toBe('Limit');
      // ...and nothing sorts more than the page.
      for (const { node } of nodes.filter(({ node }) => node['Node Type'] === 'Sort')) {
        expect(node['Plan Rows'] as number, context).toBeLessThanOrEqual(101);
      }
    }
  });
});
