import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, organisations } from '../../src/db/schema/index.js';
import { sweepConditions } from '../../src/features/disputes/deadline-sweep.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The deadline sweep's cost follows what is due, not what is stored: among 20,000 disputes of which a
 * handful are due, each of its queries reads only its partial index, and only the due rows of it (for
 * due soon, the rows within the widest window any organisation set).
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

const hour = 3_600_000;

async function explain(where: SQL, order: AnyPgColumn) {
  const query = db.db.select({ uid: disputes.uid }).from(disputes).where(where).orderBy(asc(order)).toSQL();
  const [explained] = await db.sql.unsafe(
    `explain (analyze, format json) ${query.sql}`,
    query.params as never[],
  );
  const plan = ((explained?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[])[0]?.Plan ?? {};
  return nodesOf(plan);
}

describe('the deadline sweep query plans', () => {
  it('read one partial index each, touching only the due rows', async () => {
    const org = await createOrganisation(db.db, { name: 'Test Org' });
    const now = Date.now();
    const states = ['needs_response', 'submitted', 'won', 'lost', 'under_review'];
    const rows = Array.from({ length: 20_000 }, (_, index) => ({
      orgId: org.org,
      livemode: false,
      id: `dp_sweep_${index}`,
      state: states[index % states.length] ?? 'won',
      reason: 'fraudulent',
      source: 'mock',
      // Open disputes far from their deadline, or answered ones long past it: none due.
      dueBy: new Date(index % 5 === 0 ? now + 30 * 24 * hour : now - 30 * 24 * hour),
    }));
    const due = [
      { id: 'dp_due_soon', state: 'needs_response', dueBy: new Date(now + 5 * hour) },
      { id: 'dp_overdue', state: 'warning_needs_response', dueBy: new Date(now - hour) },
      {
        id: 'dp_queued_due',
        state: 'queued',
        dueBy: new Date(now + 20 * hour),
        submitAt: new Date(now - 1000),
      },
    ].map((row) => ({ ...row, orgId: org.org, livemode: false, reason: 'general', source: 'mock' }));
    for (let start = 0; start < rows.length; start += 2000) {
      await db.db.insert(disputes).values(rows.slice(start, start + 2000));
    }
    await db.db.insert(disputes).values(due);
    await db.sql`analyze disputes`;

    const cases = [
      {
        name: 'queued',
        where: sweepConditions.queued(60_000),
        order: disputes.submitAt,
        index: 'disputes_queued_idx',
      },
      {
        name: 'due soon',
        where: sweepConditions.dueSoon(48 * hour),
        order: disputes.dueBy,
        index: 'disputes_due_soon_idx',
      },
      {
        name: 'overdue',
        where: sweepConditions.overdue(),
        order: disputes.dueBy,
        index: 'disputes_overdue_idx',
      },
    ];
    for (const { name, where, order, index } of cases) {
      const scans = disputeScans(await explain(where, order), name);
      expect(scans.indexes, scans.context).toEqual([index]);
      // ...and the scan returned the one due row and nothing else.
      expect(scans.rows, scans.context).toBe(1);
    }
  });

  it("due soon keeps to its partial index with organisations' own windows, within the widest", async () => {
    const narrow = await createOrganisation(db.db, { name: 'Test Org' });
    const wide = await createOrganisation(db.db, { name: 'Test Org' });
    await db.db.update(organisations).set({ dueSoonHours: 100 }).where(eq(organisations.id, wide.org));
    const now = Date.now();
    const open = (org: string, id: string, dueInHours: number) => ({
      orgId: org,
      livemode: false,
      id,
      state: 'needs_response',
      reason: 'general',
      source: 'mock',
      dueBy: new Date(now + dueInHours * hour),
    });
    await db.db
      .insert(disputes)
      .values([
        open(wide.org, 'dp_wide_80', 80),
        open(wide.org, 'dp_wide_120', 120),
        open(narrow.org, 'dp_narrow_80', 80),
        open(narrow.org, 'dp_narrow_20', 20),
      ]);
    await db.sql`analyze disputes`;

    const where = and(sweepConditions.dueSoon(48 * hour), inArray(disputes.orgId, [wide.org, narrow.org]));
    const due = await db.db.select({ id: disputes.id }).from(disputes).where(where);
    expect(due.map((row) => row.id).sort()).toEqual(['dp_narrow_20', 'dp_wide_80']);

    const scans = disputeScans(await explain(sweepConditions.dueSoon(48 * hour), disputes.dueBy), 'due soon');
    expect(scans.indexes, scans.context).toEqual(['disputes_due_soon_idx']);
    // The range bound is the widest window (100 hours): of every tenant's open rows it reads only those.
    expect(scans.read, scans.context).toBeLessThanOrEqual(4);
  });
});

/**
 * How a plan reaches the disputes table: never by a sequential scan, only through the indexes listed (the
 * organisations table, small, is the per-organisation window's lookup and may be read any way).
 */
function disputeScans(nodes: PlanNode[], name: string) {
  const context = `${name}: ${JSON.stringify(nodes)}`;
  expect(
    nodes.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'disputes'),
    context,
  ).toEqual([]);
  const scans = nodes.filter((node) => String(node['Index Name'] ?? '').startsWith('disputes_'));
  const first = scans[0] ?? {};
  return {
    context,
    indexes: scans.map((node) => node['Index Name']),
    rows: first['Actual Rows'],
    read: Number(first['Actual Rows'] ?? 0) + Number(first['Rows Removed by Filter'] ?? 0),
  };
}
