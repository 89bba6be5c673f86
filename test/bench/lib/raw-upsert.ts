import { getTableColumns } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type postgres from 'postgres';
import { disputes } from '../../../src/db/schema/index.js';
import type { NormalizedDispute } from '../../../src/processors/types.js';

/**
 * The mirror benches' baseline: the plainest batched upsert of a page of normalized disputes, sent as one
 * JSON parameter the way the mirror sends it, with every column overwritten and nothing compared (no
 * transaction, events or rules).
 */

export function pageKeys(sample: NormalizedDispute) {
  return Object.keys(sample) as (keyof NormalizedDispute)[];
}

/** The plainest upsert of a page sent as one JSON parameter: every column overwritten, nothing compared. */
export function rawJsonUpsert(client: postgres.Sql, orgId: string, sample: NormalizedDispute) {
  const columns = getTableColumns(disputes);
  const keys = pageKeys(sample);
  const text = `insert into disputes (org_id, livemode, source, account, ${keys.map(toSnakeCase).join(', ')})
    select $1, false, 'mock', 'default', ${keys.map((key) => `page."${key}"`).join(', ')}
    from jsonb_to_recordset($2::jsonb) as page(${keys.map((key) => `"${key}" ${columns[key].getSQLType()}`).join(', ')})
    on conflict (org_id, livemode, id) do update set ${keys
      .filter((key) => key !== 'id')
      .map((key) => `${toSnakeCase(key)} = excluded.${toSnakeCase(key)}`)
      .join(', ')}`;
  return async (page: NormalizedDispute[]) => {
    await client.unsafe(text, [orgId, JSON.stringify(page)], { prepare: true });
  };
}
