import { and, asc, desc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client.js';
import { ApiError } from '../domain/errors.js';

/** Cursor paging of API.md section 4, for every list: newest first by (created, id), both directions. */
export interface PageQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

type Pageable = PgTable & {
  createdAt: AnyPgColumn;
  id: AnyPgColumn;
};

export interface PagePlan {
  /** The cursor's bound, to be and-ed with the caller's own conditions; undefined on a first page. */
  after: SQL | undefined;
  orderBy: SQL[];
  /** Rows to fetch: one more than the page, to learn whether more exist. */
  limit: number;
  finish<T>(rows: T[]): { data: T[]; hasMore: boolean };
}

/** `scope` restricts the cursor lookup to the caller's own rows, so another tenant's id is unknown here. */
export async function planPage(
  db: Db,
  table: Pageable,
  scope: SQL | undefined,
  query: PageQuery,
): Promise<PagePlan> {
  const cursorId = query.startingAfter ?? query.endingBefore;
  const backwards = query.endingBefore !== undefined;
  let after: SQL | undefined;
  if (cursorId !== undefined) {
    const [cursor] = await db
      .select({ createdAt: table.createdAt, id: table.id })
      .from(table)
      .where(and(scope, eq(table.id, cursorId)));
    if (!cursor) throw new ApiError('invalid_request', `No object with id '${cursorId}' to page from.`);
    const compare = backwards ? gt : lt;
    after = or(
      compare(table.createdAt, cursor.createdAt),
      and(eq(table.createdAt, cursor.createdAt), compare(table.id, cursor.id)),
    );
  }
  // A page before a cursor is read oldest first from the cursor, then turned around to newest first.
  const direction = backwards ? asc : desc;
  return {
    after,
    orderBy: [direction(table.createdAt), direction(table.id)],
    limit: query.limit + 1,
    finish(rows) {
      const page = rows.slice(0, query.limit);
      return { data: backwards ? page.reverse() : page, hasMore: rows.length > query.limit };
    },
  };
}
