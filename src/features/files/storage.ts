import type { Db, Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { fileContents } from '../../db/schema/index.js';

/**
 * Where files' bytes are kept (docs/architecture.md, "Files"). Postgres by default, as response documents
 * are, which holds on the embedded database too; an object store could implement the same three calls.
 * The `files` table says what each file is; the storage holds only the bytes, by file id.
 */
export interface FileStorage {
  /** Keeps a file's bytes, in the transaction that records the file (a store outside Postgres writes first). */
  put(tx: Tx, id: string, bytes: Buffer): Promise<void>;
  /** The bytes of these files, by id; a file the storage does not hold is absent. */
  get(ids: readonly string[]): Promise<Map<string, Buffer>>;
  /** Forgets these files' bytes, in the transaction that deletes their records. */
  remove(tx: Tx, ids: readonly string[]): Promise<void>;
}

/** The bytes in Postgres's `file_contents`, deleted with their file's row. */
export function postgresFileStorage(db: Db): FileStorage {
  return {
    async put(tx, id, bytes) {
      await tx.insert(fileContents).values({ fileId: id, content: bytes });
    },
    async get(ids) {
      if (ids.length === 0) return new Map();
      const rows = await db
        .select()
        .from(fileContents)
        .where(anyOf(fileContents.fileId, ids, 'text'));
      return new Map(rows.map((row) => [row.fileId, row.content]));
    },
    async remove(tx, ids) {
      if (ids.length === 0) return;
      await tx.delete(fileContents).where(anyOf(fileContents.fileId, ids, 'text'));
    },
  };
}
