import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { beyond, type PageQuery, pageOrder, planPage } from '../../db/paging.js';
import { preparedFor } from '../../db/prepared.js';
import { disputes, templates } from '../../db/schema/index.js';
import type { DisputeState } from '../../domain/states.js';
import { type Caller, ownedBy } from '../tenancy.js';

export interface ListQuery extends PageQuery {
  states?: DisputeState[];
  account?: string;
}

/** What a dispute object derives from: its row's version and its template's (see DisputeObjectCache). */
export interface DisputeStamp {
  uid: string;
  version: number;
  templateUid: string | null;
  templateVersion: number | null;
}

const placeholder = sql.placeholder;

/**
 * The page of stamps as one prepared statement per direction. Filters are nullable parameters, and a first
 * page pages from `infinity`, so one shape serves every list: drizzle builds it once, and the row
 * comparison against the cursor stays a condition on the list index for every page.
 *
 * The page is cut from the index first and joined to its templates after: joining first lets the planner
 * hash-join and sort the whole tenant.
 */
const stampPage = (backwards: boolean) =>
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
          sql`(${placeholder('states')}::text[] is null or ${disputes.state} = any(${placeholder('states')}::text[]))`,
          sql`(${placeholder('account')}::text is null or ${disputes.account} = ${placeholder('account')}::text)`,
        ),
      )
      .orderBy(order(disputes.createdAt), order(disputes.id))
      .limit(placeholder('limit'))
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
      .orderBy(order(page.createdAt), order(page.id))
      .prepare(backwards ? 'list_disputes_newer' : 'list_disputes_older');
  });
const olderStamps = stampPage(false);
const newerStamps = stampPage(true);

/** A page of stamps, newest `created` first; the objects themselves come from the DisputeObjectCache. */
export async function listDisputes(db: Db, caller: Caller, query: ListQuery) {
  const plan = await planPage(db, disputes, ownedBy(disputes, caller), query);
  const rows: DisputeStamp[] = await (plan.backwards ? newerStamps : olderStamps)(db).execute({
    orgId: caller.orgId,
    livemode: caller.livemode,
    cursorCreatedAt: plan.cursor?.createdAt.toISOString() ?? 'infinity',
    cursorId: plan.cursor?.id ?? '',
    states: query.states?.length ? query.states : null,
    account: query.account ?? null,
    limit: plan.limit,
  });
  return plan.finish(rows);
}
