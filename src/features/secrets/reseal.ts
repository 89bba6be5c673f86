import { getTableName, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import type { SecretBox } from '../../secrets.js';
import { rowName, type SealedColumn, sealedAt, sealedColumns } from './sealed-columns.js';

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

/** A row's key values (`k0`, `k1`, … in the order of its `key`) and its sealed value. */
type SealedRow = Record<string, unknown> & { value: string };

async function resealColumn(
  db: Db,
  secrets: SecretBox,
  name: SealedColumn,
  batch: number,
): Promise<ResealCount> {
  const { table, column, key } = sealedColumns[name];
  const count: ResealCount = { table: getTableName(table), column, resealed: 0, current: 0, unreadable: 0 };
  const value = sql.identifier(column);
  // Rows are walked in the order of their key, a row value compared as a whole: the primary key's index.
  const keyColumns = sql.join([...key], sql`, `);
  const keyOf = (row: SealedRow) => key.map((_, index) => row[`k${index}`]);
  const tuple = (values: unknown[]) =>
    sql.join(
      values.map((item) => sql`${item}`),
      sql`, `,
    );
  const selected = sql.join(
    key.map((part, index) => sql`${part} as ${sql.identifier(`k${index}`)}`),
    sql`, `,
  );
  let after: unknown[] | null = null;
  for (;;) {
    const from: unknown[] | null = after;
    const rows = await db.transaction(async (tx): Promise<SealedRow[]> => {
      const found = rowsOf<SealedRow>(
        await tx.execute(sql`
          select ${selected}, ${value} as value from ${table}
          where ${value} is not null ${from === null ? sql`` : sql`and (${keyColumns}) > (${tuple(from)})`}
          order by ${keyColumns} limit ${batch} for update`),
      );
      for (const row of found) {
        let sealed: string | null;
        try {
          sealed = secrets.reseal(row.value, sealedAt(name, rowName(keyOf(row))));
        } catch {
          count.unreadable++;
          continue;
        }
        if (sealed === null) {
          count.current++;
          continue;
        }
        await tx.execute(
          sql`update ${table} set ${value} = ${sealed} where (${keyColumns}) = (${tuple(keyOf(row))})`,
        );
        count.resealed++;
      }
      return found;
    });
    if (rows.length < batch) return count;
    const last = rows.at(-1);
    after = last ? keyOf(last) : null;
  }
}
