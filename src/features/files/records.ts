import { createHash } from 'node:crypto';
import { sql, sum } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { files } from '../../db/schema/index.js';
import type { FileType } from '../../domain/evidence-files.js';
import { newId } from '../../ids.js';
import { ownedBy, type Tenant } from '../tenancy.js';
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

/**
 * The bytes the tenant's files hold, for the FILES_MAX_BYTES bound (docs/api.md, "Uploading"). Whoever
 * adds files for a tenant asks this first in the same transaction: the writers take turns, so two at once
 * cannot both pass the bound.
 */
export async function heldFileBytes(tx: Tx, tenant: Tenant): Promise<number> {
  const key = `files:${tenant.orgId}:${tenant.livemode}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
  const [held] = await tx
    .select({ bytes: sum(files.size).mapWith(Number) })
    .from(files)
    .where(ownedBy(files, tenant));
  return held?.bytes ?? 0;
}
