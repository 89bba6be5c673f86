import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { Batcher } from '../../db/batcher.js';
import type { Db, Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes, documents, events, submissions } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import { renderPool } from '../../documents/render-pool.js';
import { type DocumentLimits, documentSizeProblem, measureDocument } from '../../domain/document-size.js';
import {
  buildEvidenceDocument,
  type EvidenceDocumentInput,
  evidenceDictionary,
} from '../../domain/evidence-document.js';
import type { EvidenceLimits, FileReference } from '../../domain/evidence-files.js';
import { Failure } from '../../domain/failure.js';
import { newId } from '../../ids.js';
import type { AttachedFile, ResponsePackage } from '../../processors/types.js';
import type { DisputeRow, TemplateRow } from '../disputes/records.js';
import type { FileOwner } from '../files/attachments.js';
import { type FileStorage, postgresFileStorage } from '../files/storage.js';
import { documentFiles, storedDocumentFiles } from './document-files.js';

type SubmissionRow = typeof submissions.$inferSelect;

/** A submission being sent, with its dispute, the template it names, its files and its processor's limits. */
export interface DocumentSource {
  submission: SubmissionRow;
  dispute: DisputeRow;
  template: TemplateRow | null;
  files: AttachedFile[];
  limits: EvidenceLimits;
}

/**
 * The response package of each submission: rendered from the submission's evidence snapshot and stored
 * before the processor is called, once. Every later run of the same attempt (a retry, a worker that took
 * over) sends the stored bytes, so the processor always receives the same document under the same
 * idempotency key, even if the template has been edited meanwhile. Storing is batched like the runner's
 * other writes: the submissions of a moment share one transaction.
 */
export class DocumentStore {
  readonly #db: Db;
  readonly #storage: FileStorage;
  readonly #limits: DocumentLimits;
  readonly #stores: Batcher<Rendered, ResponsePackage>;

  constructor(db: Db, storage: FileStorage, limits: DocumentLimits) {
    this.#db = db;
    this.#storage = storage;
    this.#limits = limits;
    this.#stores = new Batcher((items) => storeMany(db, items));
  }

  async responseFor(source: DocumentSource): Promise<ResponsePackage> {
    const stored = source.submission.documentId;
    if (stored) return loadPackage(this.#db, stored, source.dispute);
    return this.#stores.call(await renderResponse(this.#db, this.#storage, source, this.#limits));
  }
}

/**
 * A document over the size limits when its turn to render came: the template was edited after the
 * submit, or an operator retried a submission made before. Retrying cannot shrink it.
 */
class OversizedDocumentError extends Failure {
  override readonly name = 'OversizedDocumentError';
  readonly permanent = true;
}

interface Rendered {
  source: DocumentSource;
  input: EvidenceDocumentInput;
  response: ResponsePackage;
}

/** What a response document is drawn from, as a submission (or a preview of one) has it. */
export interface ResponseSource {
  /** The dispute with the evidence to send (a submission's snapshot, or the dispute's own for a preview). */
  dispute: DisputeRow;
  template: TemplateRow | null;
  files: readonly AttachedFile[];
  limits: EvidenceLimits;
  generatedAt: Date;
}

/**
 * The document's input and the bytes of the files it shows: the one path from a submission, or a
 * preview of one (features/responses/preview.ts), to the renderer.
 */
export async function responseInput(db: Db, storage: FileStorage, source: ResponseSource) {
  const { dispute, template } = source;
  const owner: FileOwner = { orgId: dispute.orgId, livemode: dispute.livemode };
  const shown = await documentFiles(db, storage, owner, source.files, source.limits, dispute.productImages);
  const input: EvidenceDocumentInput = {
    dispute,
    template: template && {
      id: template.id,
      name: template.name,
      body: template.body,
      fields: template.fields,
    },
    generatedAt: source.generatedAt,
    files: shown.files,
    productImages: shown.productImages,
  };
  return { input, bytes: shown.bytes };
}

/**
 * Renders what a submission sends. Deterministic: the same snapshot, dispute, template and files give the
 * same evidence and the same PDF, dated by the submission rather than the clock.
 */
async function renderResponse(
  db: Db,
  storage: FileStorage,
  source: DocumentSource,
  limits: DocumentLimits,
): Promise<Rendered> {
  const { submission, dispute } = source;
  const { input, bytes } = await responseInput(db, storage, {
    ...source,
    dispute: { ...dispute, ...submission.evidence },
    generatedAt: submission.createdAt,
  });
  // The template is read when the submission runs, not when it was made: measured once more, last, so
  // that no render exceeds the limits (docs/api.md, "The size of the response document").
  const problem = documentSizeProblem(measureDocument(input), limits);
  if (problem) throw new OversizedDocumentError(`Not sent: ${problem.message}`);
  const response = await renderInput(input, bytes, submission.orgId, newId('document'), dispute.id);
  return { source, input, response };
}

/** Renders a document's input through the process's render pool, in `orgId`'s turn. */
export async function renderInput(
  input: EvidenceDocumentInput,
  bytes: ReadonlyMap<string, Buffer>,
  orgId: string,
  documentId: string,
  disputeId: string,
): Promise<ResponsePackage> {
  const pdf = await renderPool().render(buildEvidenceDocument(input), orgId, bytes);
  return {
    evidence: evidenceDictionary(input),
    document: {
      id: documentId,
      filename: documentFilename(disputeId),
      pdf,
      sha256: createHash('sha256').update(pdf).digest('hex'),
    },
  };
}

/**
 * Renders documents of these disputes again, in the caller's transaction, from their stored inputs as
 * `redact` changes them: after a personal-data removal, the PDF and the evidence dictionary (whose
 * `uncategorized_text` may quote any attribute) must lose the person too. Everything else stays as it was
 * sent: the template as it stood, the dispute as submitted, the date. Each document keeps its id; its
 * submission's hash and the `dispute.response.generated` events that carried its evidence follow. Answers
 * the ids of the documents that changed.
 */
export async function rerenderDocuments(
  tx: Tx,
  disputeUids: string[],
  redact: (input: EvidenceDocumentInput) => EvidenceDocumentInput,
): Promise<string[]> {
  if (disputeUids.length === 0) return [];
  const rows = await tx
    .select({ document: documents, disputeId: disputes.id })
    .from(documents)
    .innerJoin(disputes, eq(disputes.uid, documents.disputeUid))
    .where(anyOf(documents.disputeUid, disputeUids, 'uuid'))
    .orderBy(documents.id)
    .for('update', { of: documents });
  const changed: string[] = [];
  const storage = postgresFileStorage(tx);
  for (const { document, disputeId } of rows) {
    const stored = inputFromJson(document.input);
    const redacted = redact(stored);
    // Only what the redaction changes is rendered again: the others stay byte for byte what was sent.
    if (JSON.stringify(inputToJson(redacted)) === JSON.stringify(inputToJson(stored))) continue;
    // The files are drawn again from their references; one removed meanwhile is listed as removed.
    const { input, bytes } = await storedDocumentFiles(tx, storage, document, redacted);
    const response = await renderInput(input, bytes, document.orgId, document.id, disputeId);
    const { pdf, sha256 } = response.document;
    if (sha256 === document.sha256) continue;
    await tx
      .update(documents)
      .set({ input: inputToJson(input), evidence: response.evidence, pdf, sha256 })
      .where(eq(documents.id, document.id));
    await tx
      .update(submissions)
      .set({ documentSha256: sha256 })
      .where(eq(submissions.id, document.submissionId));
    await tx
      .update(events)
      .set({
        data: sql`jsonb_set(${events.data}, '{evidence}', ${JSON.stringify(response.evidence)}::jsonb)`,
      })
      .where(
        and(
          eq(events.disputeUid, document.disputeUid),
          eq(events.type, 'dispute.response.generated'),
          sql`${events.data}->>'response_document' = ${document.id}`,
        ),
      );
    changed.push(document.id);
  }
  return changed;
}

/**
 * The files a stored document was rendered with, as references: a later attempt of its submission sends
 * these, not what the template's `file` fields name by then (the template may have been edited since),
 * so that the processor receives the files the document lists.
 */
export async function renderedFileReferences(db: Db, documentId: string): Promise<FileReference[]> {
  const [row] = await db
    .select({ input: documents.input })
    .from(documents)
    .where(eq(documents.id, documentId));
  if (!row) throw new Error(`document ${documentId} is missing`);
  return (inputFromJson(row.input).files ?? []).flatMap((file) =>
    file.removed ? [] : [{ file: file.id, category: file.category, description: file.description }],
  );
}

/** The dispute's moments, which JSON carries as ISO strings. */
const disputeMoments = [
  'chargedAt',
  'disputedAt',
  'dueBy',
  'submittedAt',
  'closedAt',
  'createdAt',
  'updatedAt',
] as const;

function inputToJson(input: EvidenceDocumentInput): Record<string, unknown> {
  return JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
}

function inputFromJson(json: Record<string, unknown>): EvidenceDocumentInput {
  const stored = json as unknown as EvidenceDocumentInput;
  const dispute = { ...stored.dispute };
  for (const key of disputeMoments) {
    const value = dispute[key] as unknown;
    (dispute as Record<string, unknown>)[key] = typeof value === 'string' ? new Date(value) : null;
  }
  return { ...stored, dispute, generatedAt: new Date(stored.generatedAt) };
}

/** Dispute ids are `A-Z a-z 0-9 _ - . :`; a colon is not welcome in file names. */
export function documentFilename(disputeId: string): string {
  return `response-${disputeId.replaceAll(':', '_')}.pdf`;
}

/**
 * Stores the documents and points their submissions at them, in one statement (atomic on its own: no
 * transaction, one round trip). A submission that has one already (another runner stored it first) keeps
 * it, and its caller gets the stored one.
 */
async function storeMany(db: Db, items: Rendered[]): Promise<ResponsePackage[]> {
  const rows = items.map(({ source, input, response }) => ({
    id: response.document.id,
    orgId: source.submission.orgId,
    livemode: source.submission.livemode,
    disputeUid: source.submission.disputeUid,
    submissionId: source.submission.id,
    input,
    evidence: response.evidence,
    sha256: response.document.sha256,
  }));
  const pdfs = items.map(({ response }) => response.document.pdf.toString('base64')).join(',');
  const linked = await storeDocuments.run(db, { rows: JSON.stringify(rows), pdfs });
  const inserted = new Set(linked.map((row) => row.id as string));
  const lost = items.filter(({ response }) => !inserted.has(response.document.id));
  const kept = new Map<string, typeof documents.$inferSelect>();
  if (lost.length > 0) {
    const ids = lost.map(({ source }) => source.submission.id);
    const rows = await db
      .select()
      .from(documents)
      .where(anyOf(documents.submissionId, ids, 'text'));
    for (const row of rows) kept.set(row.submissionId, row);
  }
  return items.map(({ source, response }) => {
    const stored = kept.get(source.submission.id);
    return stored ? toPackage(stored, source.dispute.id) : response;
  });
}

/**
 * The rows travel as one JSON parameter (statement text the same for any batch), their PDFs beside it as
 * one text parameter, in base64 joined by commas, zipped back to their rows in order (ROWS FROM): a third
 * less to write to Postgres's socket than the hex a bytea parameter is sent as, and neither escaped into
 * JSON on our side nor lexed as JSON on Postgres's.
 */
const storeDocuments = statement<{ rows: string; pdfs: string }>(sql`
  with stored as (
    insert into ${documents} (id, org_id, livemode, dispute_uid, submission_id, input, evidence, pdf, sha256)
    select id, "orgId", livemode, "disputeUid", "submissionId", input, evidence, decode(pdf, 'base64'), sha256
    from rows from (
      jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as (id text, "orgId" text, livemode boolean,
        "disputeUid" uuid, "submissionId" text, input jsonb, evidence jsonb, sha256 text),
      unnest(string_to_array(${sql.placeholder('pdfs')}::text, ','))
    ) as document(id, "orgId", livemode, "disputeUid", "submissionId", input, evidence, sha256, pdf)
    on conflict (submission_id) do nothing
    returning id, submission_id, sha256
  )
  update ${submissions} as s set document_id = stored.id, document_sha256 = stored.sha256
  from stored
  where s.id = stored.submission_id
  returning stored.id`);

async function loadPackage(db: Db, documentId: string, dispute: DisputeRow): Promise<ResponsePackage> {
  const [row] = await db.select().from(documents).where(eq(documents.id, documentId));
  if (!row) throw new Error(`document ${documentId} is missing`);
  return toPackage(row, dispute.id);
}

function toPackage(row: typeof documents.$inferSelect, disputeId: string): ResponsePackage {
  return {
    evidence: row.evidence,
    document: { id: row.id, filename: documentFilename(disputeId), pdf: row.pdf, sha256: row.sha256 },
  };
}
