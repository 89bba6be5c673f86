import type { DocumentFile, DocumentProductImage } from './evidence-attachments.js';
import type { EvidenceDocumentInput } from './evidence-document.js';
import { type EvidenceFileEntry, fileId, type ProductImage } from './evidence-files.js';
import { isRecord, redactedText } from './redaction.js';

/**
 * A person's files in a personal data request (docs/api.md, "Personal data requests"): which files a
 * dispute's evidence names, and that evidence once files are deleted. Pure.
 */

/** Why a product image or an attachment is gone after a removal: what the response document says. */
export const removedFileProblem = 'removed by a personal-data request';

/** Evidence that can name files: a dispute row, a submission snapshot, a document's dispute. */
export interface FileNaming {
  evidenceFiles?: readonly EvidenceFileEntry[] | null | undefined;
  fields?: Readonly<Record<string, unknown>> | null | undefined;
  productImages?: readonly ProductImage[] | null | undefined;
}

const isFileId = (value: unknown): value is string => fileId.safeParse(value).success;

/**
 * The ids of the files the evidence names: its `evidence_files`, every field whose value is a file id (a
 * template's `file` field, whatever the template says now), and its kept product images. Each once.
 */
export function namedFiles(evidence: FileNaming): string[] {
  return [
    ...new Set([
      ...(evidence.evidenceFiles ?? []).map((entry) => entry.file),
      ...Object.values(evidence.fields ?? {}).filter(isFileId),
      ...(evidence.productImages ?? []).flatMap((image) => (image.file ? [image.file] : [])),
    ]),
  ];
}

/**
 * The evidence without the removed files: their `evidence_files` entries dropped, the fields naming them
 * removed, their product images kept as URLs without a file, saying why. Only the keys it has change.
 */
export function withoutFiles<T extends FileNaming>(evidence: T, removed: ReadonlySet<string>): T {
  if (removed.size === 0) return evidence;
  const copy: FileNaming = { ...evidence };
  if (evidence.evidenceFiles) {
    copy.evidenceFiles = evidence.evidenceFiles.filter((entry) => !removed.has(entry.file));
  }
  if (evidence.fields) copy.fields = withoutFileFields(evidence.fields, removed);
  if (evidence.productImages) {
    copy.productImages = evidence.productImages.map((image) =>
      image.file !== null && removed.has(image.file)
        ? { url: image.url, file: null, problem: removedFileProblem }
        : image,
    );
  }
  return copy as T;
}

/**
 * A response document's input without the removed files: its dispute as `withoutFiles` leaves it, each
 * removed attachment listed as removed (not drawn, its pages not appended) and each removed product
 * image not drawn, saying why. The input then differs, so the document is rendered again.
 */
export function documentWithoutFiles(
  input: EvidenceDocumentInput,
  removed: ReadonlySet<string>,
): EvidenceDocumentInput {
  if (removed.size === 0) return input;
  return {
    ...input,
    dispute: withoutFiles(input.dispute, removed),
    files: input.files?.map(
      (file): DocumentFile => (removed.has(file.id) ? { ...file, removed: true } : file),
    ),
    productImages: input.productImages?.map(
      (image): DocumentProductImage =>
        image.file && removed.has(image.file.id)
          ? { url: image.url, file: null, problem: removedFileProblem }
          : image,
    ),
  };
}

/**
 * A filename without the person: one that mentions them becomes `[redacted]` with its extension kept
 * (`[redacted].pdf`), so that it still says what kind of file it is. `mentions` is global.
 */
export function redactFilename(filename: string, mentions: RegExp): string {
  const redacted = filename.replace(mentions, redactedText);
  if (redacted === filename) return filename;
  // Read after the mentions are replaced, so that no part of a mention is kept as the extension.
  return `${redactedText}${/\.[A-Za-z0-9]{1,8}$/.exec(redacted)?.[0] ?? ''}`;
}

/**
 * A dispute object (as events keep it) without the removed files: its `evidence_files` entries and the
 * fields naming them dropped, and the `response_files` a `dispute.response.generated` event listed left
 * out (there is nothing left to download). The files' names that mention the person are redacted whole.
 */
export function objectWithoutFiles(
  object: Record<string, unknown>,
  removed: ReadonlySet<string>,
  mentions: RegExp,
): Record<string, unknown> {
  const copy = { ...object };
  const listed = (value: unknown) => (Array.isArray(value) ? value.filter(isRecord) : null);
  const kept = (entry: Record<string, unknown>) =>
    !(typeof entry.file === 'string' && removed.has(entry.file));
  const evidenceFiles = listed(object.evidence_files);
  if (evidenceFiles) copy.evidence_files = evidenceFiles.filter(kept);
  if (isRecord(object.fields)) copy.fields = withoutFileFields(object.fields, removed);
  const responseFiles = listed(object.response_files);
  if (responseFiles) {
    copy.response_files = responseFiles
      .filter(kept)
      .map((entry) =>
        typeof entry.filename === 'string'
          ? { ...entry, filename: redactFilename(entry.filename, mentions) }
          : entry,
      );
  }
  return copy;
}

/** The fields but those whose value is a removed file's id. */
function withoutFileFields<T>(fields: Readonly<Record<string, T>>, removed: ReadonlySet<string>) {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => !(isFileId(value) && removed.has(value))),
  );
}
