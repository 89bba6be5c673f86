import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { files as fileRows } from '../../db/schema/index.js';
import type { DocumentFile, DocumentProductImage } from '../../domain/evidence-attachments.js';
import type { EvidenceDocumentInput } from '../../domain/evidence-document.js';
import { type EvidenceLimits, type ProductImage, slotOf } from '../../domain/evidence-files.js';
import { imageSize } from '../../domain/image-size.js';
import type { AttachedFile } from '../../processors/types.js';
import type { FileOwner } from '../files/attachments.js';
import type { FileStorage } from '../files/storage.js';

/**
 * The files a response document shows (domain/evidence-attachments.ts): what each is, by reference, for
 * the document's input (kept in documents.input, never the bytes), and the bytes by file id for the render.
 */
export interface DocumentFiles {
  files: DocumentFile[];
  productImages: DocumentProductImage[];
  bytes: Map<string, Buffer>;
}

/** A submission's files as the document takes them: placed by the processor's slots. */
export function documentFile(file: AttachedFile, limits: EvidenceLimits): DocumentFile {
  return {
    id: file.id,
    category: file.category,
    description: file.description,
    filename: file.filename,
    type: file.type,
    pages: file.pages,
    pixels: imageSize(file.bytes, file.type),
    slot: slotOf(limits, file),
  };
}

/**
 * The submission's files and the dispute's product images, with their bytes. A product image whose file
 * is gone (removed with a person's data) is noted as not available; it never fails the document.
 */
export async function documentFiles(
  db: Db,
  storage: FileStorage,
  owner: FileOwner,
  attached: readonly AttachedFile[],
  limits: EvidenceLimits,
  productImages: readonly ProductImage[],
): Promise<DocumentFiles> {
  const bytes = new Map(attached.map((file) => [file.id, file.bytes]));
  const kept = await ownedBytes(
    db,
    storage,
    owner,
    productImages.flatMap((image) => (image.file ? [image.file] : [])),
  );
  const images = productImages.map((image): DocumentProductImage => {
    const found = image.file ? kept.get(image.file) : undefined;
    if (!image.file || !found) {
      return { url: image.url, file: null, problem: image.problem ?? 'the kept image was removed' };
    }
    bytes.set(image.file, found.bytes);
    const file = { id: image.file, type: found.type, pixels: imageSize(found.bytes, found.type) };
    return { url: image.url, file, problem: null };
  });
  return { files: attached.map((file) => documentFile(file, limits)), productImages: images, bytes };
}

/**
 * The bytes a stored document's input names, to render it again (rerenderDocuments). A file gone since
 * (removed with a person's data) is marked removed, and its product image not available: the document
 * says so instead of drawing it.
 */
export async function storedDocumentFiles(
  db: Db,
  storage: FileStorage,
  owner: FileOwner,
  input: EvidenceDocumentInput,
): Promise<{ input: EvidenceDocumentInput; bytes: Map<string, Buffer> }> {
  const ids = [
    ...(input.files ?? []).map((file) => file.id),
    ...(input.productImages ?? []).flatMap((image) => (image.file ? [image.file.id] : [])),
  ];
  const kept = await ownedBytes(db, storage, owner, ids);
  const bytes = new Map([...kept].map(([id, found]) => [id, found.bytes]));
  const files = input.files?.map((file) => (kept.has(file.id) ? file : { ...file, removed: true }));
  const productImages = input.productImages?.map((image) =>
    !image.file || kept.has(image.file.id)
      ? image
      : { url: image.url, file: null, problem: 'the kept image was removed' },
  );
  return { input: { ...input, files, productImages }, bytes };
}

/** The bytes and type of the owner's files among `ids`; another tenant's file is as absent as a deleted one. */
async function ownedBytes(db: Db, storage: FileStorage, owner: FileOwner, ids: readonly string[]) {
  const found = new Map<string, { type: DocumentFile['type']; bytes: Buffer }>();
  if (ids.length === 0) return found;
  const rows = await db
    .select({ id: fileRows.id, type: fileRows.type })
    .from(fileRows)
    .where(
      and(
        anyOf(fileRows.id, ids, 'text'),
        eq(fileRows.orgId, owner.orgId),
        eq(fileRows.livemode, owner.livemode),
      ),
    );
  const contents = await storage.get(rows.map((row) => row.id));
  for (const row of rows) {
    const bytes = contents.get(row.id);
    if (bytes) found.set(row.id, { type: row.type, bytes });
  }
  return found;
}
