import { and, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { beyond, type PagePlan, type PageQuery, pageOrder, planPage } from '../../db/paging.js';
import { preparedFor } from '../../db/prepared.js';
import { disputes, templates } from '../../db/schema/index.js';
import { disputeStates } from '../../domain/states.js';
import { type Caller, ownedBy, type Tenant } from '../tenancy.js';
import { type DisputeFilters, filterConditions, filtering, windowOf } from './filters.js';

export interface ListQuery extends PageQuery {
  filters?: DisputeFilters;
}

/** What a dispute object derives from: its row's version and its template's (see DisputeObjectCache). */
export interface DisputeStamp {
  uid: string;
  version: number;
  templateUid: string | null;
  templateVersion: number | null;
}

/** A stamp's columns: `source` is where the dispute's row is read, joined to its template. */
const stampOf = <U extends PgColumn | SQL.Aliased, V extends PgColumn | SQL.Aliased>(source: {
  uid: U;
  version: V;
}) => ({
  uid: source.uid,
  version: source.version,
  templateUid: templates.uid,
  templateVersion: templates.version,
});

const templateOf = (source: { orgId: SQLWrapper; livemode: SQLWrapper; template: SQLWrapper }) =>
  and(
    eq(templates.orgId, source.orgId),
    eq(templates.livemode, source.livemode),
    eq(templates.id, source.template),
  );

const placeholder = sql.placeholder;

/**
 * An unfiltered page (what clients poll) as one prepared statement per direction: drizzle builds it once,
 * and Postgres plans it once per connection. A first page pages from `infinity`, so one shape serves every
 * page, and the row comparison against the cursor stays a condition on the list index.
 *
 * The page is cut from the disputes first and joined to their templates after: joining first lets the
 * planner hash-join and sort the whole tenant.
 */
const unfilteredPage = (backwards: boolean) =>
  preparedFor((db) => {
    const order = pageOrder(backwards);
    const page = db
      .select({
        uid: disputes.uid,
        version: disputes.version,
        orgId: disputes.orgId,
        livemode: disputes.livemode,
        template: disputes.template,
        createdAt: disputes.createdAt,
        id: disputes.id,
      })
      .from(disputes)
      .where(
        and(
          eq(disputes.orgId, placeholder('orgId')),
          eq(disputes.livemode, placeholder('livemode')),
          beyond(disputes.createdAt, disputes.id, backwards, [
            sql`${placeholder('cursorCreatedAt')}::timestamptz`,
            sql`${placeholder('cursorId')}::text`,
          ]),
        ),
      )
      .orderBy(order(disputes.createdAt), order(disputes.id))
      .limit(placeholder('limit'))
      .as('page');
    return db
      .select(stampOf(page))
      .from(page)
      .leftJoin(templates, templateOf(page))
      .orderBy(order(page.createdAt), order(page.id))
      .prepare(backwards ? 'list_disputes_newer' : 'list_disputes_older');
  });
const olderStamps = unfilteredPage(false);
const newerStamps = unfilteredPage(true);

/**
 * A filtered page's statement, built for each request with its values, so that Postgres plans it for them:
 * a prepared statement's generic plan cannot know whether `due_by < $1` holds for ten rows or for all of
 * them, and so which index to read. Exported for the plan test, which explains exactly this statement.
 *
 * The page is cut as (created, id) only, and the disputes are read after by id: an index holding the
 * filter's column with (created, id) then answers the cut alone. The cursor's row comparison is left out
 * where the `created` filter already implies it: Postgres starts its scan at the row comparison whenever
 * there is one, so with a cursor far newer than `created[lte]` it would read every index entry in between.
 * Why each: docs/architecture.md, "Dispute search".
 */
export function filteredPage(
  db: Db,
  tenant: Tenant,
  filters: DisputeFilters,
  plan: Pick<PagePlan, 'cursor' | 'backwards' | 'limit'>,
  now: Date,
) {
  const { cursor, backwards } = plan;
  const created = windowOf(filters.created);
  const implied =
    cursor &&
    (backwards
      ? created.from !== undefined && created.from > cursor.createdAt
      : created.until !== undefined && created.until <= cursor.createdAt);
  const order = pageOrder(backwards);
  const pageCreated = endsInThePast(filters, now)
    ? sql`${disputes.createdAt} + interval '0 s'`
    : disputes.createdAt;
  const page = db
    .select({ createdAt: disputes.createdAt, id: disputes.id })
    .from(disputes)
    .where(
      and(
        ownedBy(disputes, tenant),
        cursor && !implied
          ? beyond(disputes.createdAt, disputes.id, backwards, [
              sql`${cursor.createdAt.toISOString()}::timestamptz`,
              sql`${cursor.id}::text`,
            ])
          : undefined,
        ...filterConditions(filters),
      ),
    )
    .orderBy(order(pageCreated), order(disputes.id))
    .limit(plan.limit)
    .as('page');
  return db
    .select(stampOf(disputes))
    .from(page)
    .innerJoin(disputes, and(ownedBy(disputes, tenant), eq(disputes.id, page.id)))
    .leftJoin(templates, templateOf(disputes))
    .orderBy(order(page.createdAt), order(page.id));
}

/**
 * Whether a `due_by` or `disputed_at` window ends before now, so that the newest disputes are outside it.
 * Postgres takes a window's disputes to be spread evenly over `created` and would read the list index newest
 * first, past every newer dispute (a 14-day window a year back: 1.8 s on a million). Its page is then
 * ordered by an expression no index gives, which leaves the planner to read the window from its own index
 * and sort it (25 ms): docs/architecture.md, "Dispute search".
 */
function endsInThePast(filters: DisputeFilters, now: Date): boolean {
  return [filters.dueBy, filters.disputedAt].some((bounds) => {
    const { until } = windowOf(bounds);
    return until !== undefined && until < now;
  });
}

/** A page of stamps, newest `created` first; the objects themselves come from the DisputeObjectCache. */
export async function listDisputes(db: Db, caller: Caller, query: ListQuery) {
  const plan = await planPage(db, disputes, ownedBy(disputes, caller), query);
  const filters = query.filters ?? {};
  const rows: DisputeStamp[] = filtering(filters)
    ? await filteredPage(db, caller, filters, plan, new Date())
    : await (plan.backwards ? newerStamps : olderStamps)(db).execute({
        orgId: caller.orgId,
        livemode: caller.livemode,
        cursorCreatedAt: plan.cursor?.createdAt.toISOString() ?? 'infinity',
        cursorId: plan.cursor?.id ?? '',
        limit: plan.limit,
      });
  return plan.finish(rows);
}

/**
 * How many disputes match `filters`, in all and by state (the list's `include[]=total_count`): the whole
 * filtered set, wherever a page of it starts. Every state is named, 0 when none matches.
 */
export async function countDisputes(db: Db, tenant: Tenant, filters: DisputeFilters) {
  const rows = await db
    .select({ state: disputes.state, count: sql<number>`count(*)`.mapWith(Number) })
    .from(disputes)
    .where(and(ownedBy(disputes, tenant), ...filterConditions(filters)))
    .groupBy(disputes.state);
  const byState: Record<string, number> = Object.fromEntries(disputeStates.map((state) => [state, 0]));
  for (const row of rows) byState[row.state] = row.count;
  return { total: rows.reduce((sum, row) => sum + row.count, 0), byState };
}
