import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { files } from '../../db/schema/index.js';
import type { FileReference } from '../../domain/evidence-files.js';
import { Failure } from '../../domain/failure.js';
import type { AttachedFile } from '../../processors/types.js';
import type { FileStorage } from './storage.js';

/**
 * A file a submission names is gone (deleted by a personal-data removal after the submission was made):
 * retrying cannot bring it back.
 */
export class MissingFileError extends Failure {
  override readonly name = 'MissingFileError';
  readonly permanent = true;
}

/** The tenant a file must belong to: the dispute's organisation and mode. */
export interface FileOwner {
  orgId: string;
  livemode: boolean;
}

/**
 * The referenced files with their bytes, in the references' order, for the owner only: a file of another
 * organisation or mode is as missing as a deleted one.
 */
export async function attachedFiles(
  db: Db,
  storage: FileStorage,
  owner: FileOwner,
  references: readonly FileReference[],
): Promise<AttachedFile[]> {
  if (references.length === 0) return [];
  const ids = references.map((reference) => reference.file);
  const rows = await db
    .select()
    .from(files)
    .where(
      and(anyOf(files.id, ids, 'text'), eq(files.orgId, owner.orgId), eq(files.livemode, owner.livemode)),
    );
  const found = new Map(rows.map((row) => [row.id, row]));
  const bytes = await storage.get(ids);
  return references.map((reference) => {
    const row = found.get(reference.file);
    const content = bytes.get(reference.file);
    if (!row || !content)
      throw new MissingFileError(`Not sent: evidence file '${reference.file}' no longer exists.`);
    return {
      id: row.id,
      category: reference.category,
      description: reference.description,
      filename: row.filename,
      type: row.type,
      size: row.size,
      pages: row.pages,
      sha256: row.sha256,
      bytes: content,
    };
  });
}
