import { createHash } from 'node:crypto';
import type { Tx } from '../../db/client.js';
import { files } from '../../db/schema/index.js';
import type { FileType } from '../../domain/evidence-files.js';
import { newId } from '../../ids.js';
import type { FileOwner } from './attachments.js';
import type { FileStorage } from './storage.js';

export type FileRow = typeof files.$inferSelect;

/** A file to keep: bytes already inspected (domain/file-inspection.ts), and where they came from. */
export interface NewFile {
  purpose: 'dispute_evidence' | 'product_image';
  filename: string;
  type: FileType;
  pages: number | null;
  bytes: Buffer;
}

/** Records a file and keeps its bytes, in the caller's transaction: both or neither. */
export async function recordFile(
  tx: Tx,
  storage: FileStorage,
  owner: FileOwner,
  file: NewFile,
): Promise<FileRow> {
  const [row] = await tx
    .insert(files)
    .values({
      id: newId('file'),
      orgId: owner.orgId,
      livemode: owner.livemode,
      purpose: file.purpose,
      filename: file.filename,
      type: file.type,
      size: file.bytes.length,
      pages: file.pages,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
    })
    .returning();
  if (!row) throw new Error('the file row was not written');
  await storage.put(tx, row.id, file.bytes);
  return row;
}
