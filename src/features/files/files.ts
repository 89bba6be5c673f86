import { and, eq, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type PageQuery, planPage } from '../../db/paging.js';
import { disputes, files } from '../../db/schema/index.js';
import { inspectApart } from '../../documents/inspection.js';
import { ApiError, notFound } from '../../domain/errors.js';
import type { FileType } from '../../domain/evidence-files.js';
import { decidedStates } from '../../domain/states.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { type FileRow, heldFileBytes, recordFile } from './records.js';
import type { FileStorage } from './storage.js';

/** The files API (docs/api.md, "Files"): each file belongs to one organisation and mode. */

export interface FileDeps {
  db: Db;
  storage: FileStorage;
  /** FILES_MAX_BYTES: the bytes one organisation may keep in each mode (docs/api.md, "Limits"). */
  filesMaxBytes: number;
}

/** What an upload sent: the bytes and the name its part gave, if any. */
export interface Upload {
  bytes: Buffer;
  filename: string | undefined;
}

const maxFilenameLength = 255;

/**
 * The name kept for a file: the sent name without any path and without control or formatting characters
 * (a right-to-left override could disguise an extension), at most 255 characters; `file.<type>` when
 * nothing is left.
 */
function keptFilename(sent: string | undefined, type: FileType): string {
  const base = (sent ?? '').toWellFormed().split(/[/\\]/).pop() ?? '';
  const clean = base.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  const name = clean === '.' || clean === '..' ? '' : [...clean].slice(0, maxFilenameLength).join('');
  return name || `file.${type}`;
}

/**
 * Keeps an uploaded file once its bytes are judged a whole PDF, PNG or JPEG; refused with the reason
 * otherwise, or when the tenant's files would pass FILES_MAX_BYTES. Nothing is stored on a refusal.
 */
export async function uploadFile(deps: FileDeps, tenant: Tenant, upload: Upload): Promise<FileRow> {
  const inspection = await inspectApart(upload.bytes, tenant.orgId);
  if ('problem' in inspection) {
    throw new ApiError('invalid_file', `The file cannot be used: ${inspection.problem}.`);
  }
  return deps.db.transaction(async (tx) => {
    if ((await heldFileBytes(tx, tenant)) + upload.bytes.length > deps.filesMaxBytes) {
      throw new ApiError(
        'invalid_request',
        `An organisation may keep at most ${deps.filesMaxBytes} bytes of files in ${tenant.livemode ? 'live' : 'test'} mode (FILES_MAX_BYTES); delete files before uploading more.`,
      );
    }
    return recordFile(tx, deps.storage, tenant, {
      purpose: 'dispute_evidence',
      filename: keptFilename(upload.filename, inspection.type),
      type: inspection.type,
      pages: inspection.pages,
      bytes: upload.bytes,
    });
  });
}

export async function retrieveFile(db: Db, tenant: Tenant, id: string): Promise<FileRow> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(ownedBy(files, tenant), eq(files.id, id)));
  if (!row) throw notFound.file(id);
  return row;
}

/** A file and its bytes. */
export async function fileWithContents(
  deps: Pick<FileDeps, 'db' | 'storage'>,
  tenant: Tenant,
  id: string,
): Promise<{ file: FileRow; bytes: Buffer }> {
  const file = await retrieveFile(deps.db, tenant, id);
  const bytes = (await deps.storage.get([id])).get(id);
  // Deleted between the two reads: as gone as if it had never been.
  if (!bytes) throw notFound.file(id);
  return { file, bytes };
}

/** Every file of the tenant, uploaded or fetched as a product image, newest first. */
export async function listFiles(db: Db, tenant: Tenant, query: PageQuery) {
  const scope = ownedBy(files, tenant);
  const page = await planPage(db, files, scope, query);
  const rows = await db
    .select()
    .from(files)
    .where(and(scope, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  return page.finish(rows);
}

/**
 * Deletes a file and its bytes, unless a dispute that is not yet decided names it (in `evidence_files`,
 * as a field's value, or as a kept product image): its next submission or preview would miss it.
 */
export async function deleteFile(
  deps: Pick<FileDeps, 'db' | 'storage'>,
  tenant: Tenant,
  id: string,
): Promise<FileRow> {
  return deps.db.transaction(async (tx) => {
    const [file] = await tx
      .select()
      .from(files)
      .where(and(ownedBy(files, tenant), eq(files.id, id)))
      .for('update');
    if (!file) throw notFound.file(id);
    const named = sql`jsonb_build_array(jsonb_build_object('file', ${id}::text))`;
    const [user] = await tx
      .select({ id: disputes.id })
      .from(disputes)
      .where(
        and(
          ownedBy(disputes, tenant),
          notInArray(disputes.state, [...decidedStates]),
          sql`(${disputes.evidenceFiles} @> ${named} or ${disputes.productImages} @> ${named}
            or exists (select 1 from jsonb_each(${disputes.fields}) where value = to_jsonb(${id}::text)))`,
        ),
      )
      .limit(1);
    if (user) {
      throw new ApiError(
        'invalid_request',
        `The file '${id}' is named by dispute '${user.id}', which is not yet decided; remove it from that dispute first.`,
      );
    }
    await deps.storage.remove(tx, [id]);
    await tx.delete(files).where(eq(files.id, id));
    return file;
  });
}
