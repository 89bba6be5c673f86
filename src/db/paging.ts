import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { ApiError } from '../domain/errors.js';
import type { Db } from './client.js';

/** Cursor paging of docs/api.md, "Endpoints", for every list: newest first by (created, id), both directions. */
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
  /** The cursor row's (created, id), or null on a first page. */
  cursor: { createdAt: Date; id: string } | null;
  /** True for `ending_before`: the page is read oldest first from the cursor, then turned around. */
  backwards: boolean;
  /** The cursor's bound over `table`'s columns, to be and-ed with the caller's own conditions. */
  after: SQL | undefined;
  orderBy: SQL[];
  /** Rows to fetch: one more than the page, to learn whether more exist. */
  limit: number;
  finish<T>(rows: T[]): { data: T[]; hasMore: boolean };
}

/** Lists run newest first; a page before a cursor is read oldest first from it, then turned around. */
export const pageOrder = (backwards: boolean) => (backwards ? asc : desc);

/** The row comparison `(created, id) < (cursor)` (or `>`): Postgres takes it as a condition on the list index. */
export function beyond(
  createdAt: SQL | AnyPgColumn,
  id: SQL | AnyPgColumn,
  backwards: boolean,
  cursor: [SQL, SQL],
): SQL {
  return sql`(${createdAt}, ${id}) ${backwards ? sql`>` : sql`<`} (${cursor[0]}, ${cursor[1]})`;
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
  let cursor: PagePlan['cursor'] = null;
  if (cursorId !== undefined) {
    const [found] = await db
      .select({ createdAt: table.createdAt, id: table.id })
      .from(table)
      .where(and(scope, eq(table.id, cursorId)));
    if (!found) throw new ApiError('invalid_request', `No object with id '${cursorId}' to page from.`);
    cursor = { createdAt: found.createdAt as Date, id: found.id as string };
  }
  const direction = pageOrder(backwards);
  return {
    cursor,
    backwards,
    after: cursor
      ? beyond(table.createdAt, table.id, backwards, [
          sql`${cursor.createdAt.toISOString()}::timestamptz`,
          sql`${cursor.id}::text`,
        ])
      : undefined,
    orderBy: [direction(table.createdAt), direction(table.id)],
    limit: query.limit + 1,
    finish(rows) {
      const page = rows.slice(0, query.limit);
      return { data: backwards ? page.reverse() : page, hasMore: rows.length > query.limit };
    },
  };
}
