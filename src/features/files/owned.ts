import { and } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { files } from '../../db/schema/index.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import type { FileRow } from './records.js';
import type { FileStorage } from './storage.js';

/**
 * A tenant's own files, asked for or removed by id: every other tenant's files are out of reach here
 * (docs/architecture.md, "Tenancy").
 */

/**
 * The files among `ids` that belong to the tenant, by id. A file of another organisation or mode is as
 * absent as one that never existed, so a caller's answer can never tell another tenant's ids apart.
 */
export async function ownedFiles(
  tx: Tx,
  tenant: Tenant,
  ids: readonly string[],
): Promise<Map<string, Pick<FileRow, 'id' | 'purpose' | 'size'>>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: files.id, purpose: files.purpose, size: files.size })
    .from(files)
    .where(and(ownedBy(files, tenant), anyOf(files.id, ids, 'text')))
    // Held until the caller commits: a delete of the file (which locks it for update) waits, then sees
    // the dispute that now names it, rather than deleting a file a dispute is about to name.
    .for('share');
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Deletes the tenant's files among `ids`, records and bytes, in the caller's transaction. Answers the ids
 * deleted.
 */
export async function removeOwnedFiles(
  tx: Tx,
  storage: FileStorage,
  tenant: Tenant,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const removed = await tx
    .delete(files)
    .where(and(ownedBy(files, tenant), anyOf(files.id, ids, 'text')))
    .returning({ id: files.id });
  const deleted = removed.map((row) => row.id);
  await storage.remove(tx, deleted);
  return deleted;
}
