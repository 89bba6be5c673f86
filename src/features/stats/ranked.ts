import { type SQL, sql } from 'drizzle-orm';
import { maxStatsGroups } from '../../domain/dispute-stats.js';

/**
 * The groups the statistics answer (docs/api.md, "Statistics"), for disputes and alerts alike. `grouped`
 * selects per group key (`k0`, `k1`) the group's own row (`whole`) and its rows per `currency`, each with
 * the group's size in `total`. Groups are ranked by size, ties by key, so that at most `maxStatsGroups`
 * come back and one more tells that others were left out; in key order (bytes, nulls last), each group's
 * own row before its currencies'.
 */

export const groupKeys = (count: number): SQL[] =>
  Array.from({ length: count }, (_, at) => sql`${sql.identifier(`k${at}`)}`);

const list = (items: SQL[]) => sql.join(items, sql`, `);

export function rankedGroups(grouped: SQL, keyCount: number): SQL {
  const keys = groupKeys(keyCount);
  const ordered = keys.map((key) => sql`${key} collate "C"`);
  return sql`
    select * from (
      select sized.*, dense_rank() over (order by ${list([sql`group_total desc`, ...ordered])}) as place
      from (
        select sliced.*, max(total) over (${keys.length > 0 ? sql`partition by ${list(keys)}` : sql``}) as group_total
        from (${grouped}) sliced
      ) sized
    ) ranked
    where place <= ${maxStatsGroups + 1}
    order by ${list([...ordered.map((key) => sql`${key} nulls last`), sql`whole desc`, sql`currency`])}`;
}
