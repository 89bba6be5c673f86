import { and, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { beyond, type PagePlan, type PageQuery, pageOrder, planPage } from '../../db/paging.js';
import { preparedFor } from '../../db/prepared.js';
import { disputes, templates } from '../../db/schema/index.js';
import { disputeStates } from '../../domain/states.js';
import { type Caller, ownedBy, type Tenant } from '../tenancy.js';
import { type DisputeFilters, filterConditions, filtering } from './filters.js';

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

/** Where a page starts and how long it is: values, or the placeholders of a prepared statement. */
interface PageBounds {
  orgId: string | Placeholder;
  livemode: boolean | Placeholder;
  /** The cursor row's (created, id); a first page pages from `infinity`. */
  cursor: readonly [string | Placeholder, string | Placeholder];
  limit: number | Placeholder;
}

/**
 * The page of stamps: cut from the disputes first, newest first under the filters, and joined to their
 * templates after (joining first lets the planner hash-join and sort the whole tenant). The row comparison
 * against the cursor stays a condition on the index that gives the order, the list index or a filter's
 * (docs/architecture.md, "Indexes and statements").
 */
function stampsOf(db: Db, backwards: boolean, bounds: PageBounds, conditions: readonly SQL[]) {
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
        eq(disputes.orgId, bounds.orgId),
        eq(disputes.livemode, bounds.livemode),
        beyond(disputes.createdAt, disputes.id, backwards, [
          sql`${bounds.cursor[0]}::timestamptz`,
          sql`${bounds.cursor[1]}::text`,
        ]),
        ...conditions,
      ),
    )
    .orderBy(order(disputes.createdAt), order(disputes.id))
    .limit(bounds.limit)
    .as('page');
  return db
    .select({
      uid: page.uid,
      version: page.version,
      templateUid: templates.uid,
      templateVersion: templates.version,
    })
    .from(page)
    .leftJoin(
      templates,
      and(
        eq(templates.orgId, page.orgId),
        eq(templates.livemode, page.livemode),
        eq(templates.id, page.template),
      ),
    )
    .orderBy(order(page.createdAt), order(page.id));
}

const placeholder = sql.placeholder;

/**
 * An unfiltered page (what clients poll) as one prepared statement per direction: drizzle builds it once,
 * and Postgres plans it once per connection.
 */
const unfilteredPage = (backwards: boolean) =>
  preparedFor((db) =>
    stampsOf(
      db,
      backwards,
      {
        orgId: placeholder('orgId'),
        livemode: placeholder('livemode'),
        cursor: [placeholder('cursorCreatedAt'), placeholder('cursorId')],
        limit: placeholder('limit'),
      },
      [],
    ).prepare(backwards ? 'list_disputes_newer' : 'list_disputes_older'),
  );
const olderStamps = unfilteredPage(false);
const newerStamps = unfilteredPage(true);

const cursorOf = (plan: Pick<PagePlan, 'cursor'>) =>
  [plan.cursor?.createdAt.toISOString() ?? 'infinity', plan.cursor?.id ?? ''] as const;

/**
 * A filtered page's statement, built for each request with its values, so that Postgres plans it for them:
 * a prepared statement's generic plan cannot know whether `due_by <= $1` holds for ten rows or all of them,
 * and so which index to read. Exported for the plan test, which explains exactly this statement.
 */
export function filteredPage(
  db: Db,
  tenant: Tenant,
  filters: DisputeFilters,
  plan: Pick<PagePlan, 'cursor' | 'backwards' | 'limit'>,
) {
  const bounds = { ...tenant, cursor: cursorOf(plan), limit: plan.limit };
  return stampsOf(db, plan.backwards, bounds, filterConditions(filters));
}

/** A page of stamps, newest `created` first; the objects themselves come from the DisputeObjectCache. */
export async function listDisputes(db: Db, caller: Caller, query: ListQuery) {
  const plan = await planPage(db, disputes, ownedBy(disputes, caller), query);
  const filters = query.filters ?? {};
  const rows: DisputeStamp[] = filtering(filters)
    ? await filteredPage(db, caller, filters, plan)
    : await (plan.backwards ? newerStamps : olderStamps)(db).execute({
        orgId: caller.orgId,
        livemode: caller.livemode,
        cursorCreatedAt: cursorOf(plan)[0],
        cursorId: cursorOf(plan)[1],
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
