import { getTableName, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import type { SecretBox } from '../../secrets.js';
import { type SealedColumn, sealedAt, sealedColumns } from './sealed-columns.js';

/** What `secrets reseal` did in one column. */
export interface ResealCount {
  table: string;
  column: string;
  /** Sealed again under the current APP_SECRET, in the current format. */
  resealed: number;
  /** Already so: left as they were. */
  current: number;
  /** Opened under neither APP_SECRET nor APP_SECRET_PREVIOUS: left as they were. */
  unreadable: number;
}

/**
 * Seals every sealed value again under the current APP_SECRET, bound to its row (`secrets reseal`, after
 * APP_SECRET was replaced or to retire values sealed before they were bound): column by column, in batches
 * of `batch` rows, each batch one transaction holding its rows locked. A value already current is left
 * alone, so a second run changes nothing, and a run cut short is finished by the next.
 */
export async function resealAll(db: Db, secrets: SecretBox, batch = 500): Promise<ResealCount[]> {
  const counts: ResealCount[] = [];
  for (const column of Object.keys(sealedColumns) as SealedColumn[]) {
    counts.push(await resealColumn(db, secrets, column, batch));
  }
  return counts;
}

interface SealedRow {
  id: string;
  value: string;
}

async function resealColumn(
  db: Db,
  secrets: SecretBox,
  name: SealedColumn,
  batch: number,
): Promise<ResealCount> {
  const { table, column, id } = sealedColumns[name];
  const count: ResealCount = { table: getTableName(table), column, resealed: 0, current: 0, unreadable: 0 };
  const value = sql.identifier(column);
  let after: string | null = null;
  for (;;) {
    const from: string | null = after;
    const rows = await db.transaction(async (tx): Promise<SealedRow[]> => {
      const found = rowsOf<SealedRow>(
        await tx.execute(sql`
          select ${id}::text as id, ${value} as value from ${table}
          where ${value} is not null ${from === null ? sql`` : sql`and ${id} > ${from}`}
          order by ${id} limit ${batch} for update`),
      );
      for (const row of found) {
        let sealed: string | null;
        try {
          sealed = secrets.reseal(row.value, sealedAt(name, row.id));
        } catch {
          count.unreadable++;
          continue;
        }
        if (sealed === null) {
          count.current++;
          continue;
        }
        await tx.execute(sql`update ${table} set ${value} = ${sealed} where ${id} = ${row.id}`);
        count.resealed++;
      }
      return found;
    });
    if (rows.length < batch) return count;
    after = rows.at(-1)?.id ?? null;
  }
}
