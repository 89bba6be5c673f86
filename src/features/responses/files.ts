import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { files } from '../../db/schema/index.js';
import type { EvidenceFileCategory, FileReference, FileType } from '../../domain/evidence-files.js';
import type { AttachedFile } from '../../processors/types.js';
import type { FileOwner } from '../files/attachments.js';
import type { FileStorage } from '../files/storage.js';

/**
 * The evidence files of a response package (docs/api.md, "Endpoints"): what `GET …/response` and the
 * `dispute.response.generated` event list, each with a signed link added by whoever shows it, for the
 * merchant who uploads them by hand (portal processors) or checks what was sent.
 */
export interface ResponseFile {
  file: string;
  filename: string;
  category: EvidenceFileCategory;
  description: string | null;
  type: FileType;
  size: number;
}

/** The files a submission sent, as its event records them (no bytes). */
export function responseFilesOf(attached: readonly AttachedFile[]): ResponseFile[] {
  return attached.map(({ id, filename, category, description, type, size }) => ({
    file: id,
    filename,
    category,
    description,
    type,
    size,
  }));
}

/**
 * The referenced files that still exist, in the references' order, for the owner only. A file deleted
 * since (a personal-data removal) is left out: there is nothing left to describe or download.
 */
export async function responseFiles(
  db: Db,
  owner: FileOwner,
  references: readonly FileReference[],
): Promise<ResponseFile[]> {
  if (references.length === 0) return [];
  const rows = await db
    .select({ id: files.id, filename: files.filename, type: files.type, size: files.size })
    .from(files)
    .where(
      and(
        anyOf(
          files.id,
          references.map((reference) => reference.file),
          'text',
        ),
        eq(files.orgId, owner.orgId),
        eq(files.livemode, owner.livemode),
      ),
    );
  const found = new Map(rows.map((row) => [row.id, row]));
  return references.flatMap((reference) => {
    const row = found.get(reference.file);
    return row
      ? [
          {
            file: row.id,
            filename: row.filename,
            category: reference.category,
            description: reference.description,
            type: row.type,
            size: row.size,
          },
        ]
      : [];
  });
}

/**
 * A file's bytes with what names them, for its signed download link, whoever's it is (the link is the
 * credential); undefined when it is gone.
 */
export async function loadLinkedFile(db: Db, storage: FileStorage, fileId: string) {
  const [row] = await db
    .select({ filename: files.filename, type: files.type })
    .from(files)
    .where(eq(files.id, fileId));
  if (!row) return undefined;
  const bytes = (await storage.get([fileId])).get(fileId);
  return bytes && { ...row, bytes };
}
