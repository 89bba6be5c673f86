import { type FileType, fileContentTypes, slotOf } from '../domain/evidence-files.js';
import { mergeFiles } from './merge-files.js';
import { type AttachedFile, type EvidenceLimits, ProcessorError, type ResponsePackage } from './types.js';

/**
 * The evidence files a submission uploads into its processor's own slots (EvidenceLimits.slots), for
 * processors whose slot takes one file (Stripe's evidence file fields, Checkout.com's `*_file` fields):
 * a slot with one file sends it as it is, a slot with several sends them merged into one PDF
 * (merge-files.ts). Files without a slot are left to the response document. And the one check of a
 * processor's documented limits, made before the first call so that a submission is refused whole rather
 * than half sent (docs/api.md, "Files").
 */

/** One upload into one slot. */
export interface SlotUpload {
  slot: string;
  /** The files it carries, in the submission's order. */
  files: readonly AttachedFile[];
  /** `<slot>-<submission key>.<type>`: the key in the name lets a later attempt recognise the upload. */
  filename: string;
  type: FileType;
  contentType: string;
  bytes: Buffer;
  pages: number | null;
}

/** The files each slot takes, by slot, in the submission's order: a category with a slot, a type it takes. */
export function slottedFiles(limits: EvidenceLimits, files: readonly AttachedFile[]) {
  const bySlot = new Map<string, AttachedFile[]>();
  for (const file of files) {
    const slot = slotOf(limits, file);
    if (slot) bySlot.set(slot, [...(bySlot.get(slot) ?? []), file]);
  }
  return bySlot;
}

/** One upload a slot, several files merged; named after the slot and the submission's idempotency key. */
export async function slotUploads(
  limits: EvidenceLimits,
  files: readonly AttachedFile[],
  idempotencyKey: string,
): Promise<SlotUpload[]> {
  const uploads: SlotUpload[] = [];
  for (const [slot, carried] of slottedFiles(limits, files)) {
    const [only] = carried;
    const whole =
      carried.length === 1 && only
        ? { type: only.type, bytes: only.bytes, pages: only.pages }
        : { type: 'pdf' as const, ...(await mergeFiles(carried)) };
    uploads.push({
      slot,
      files: carried,
      filename: `${slot}-${idempotencyKey}.${whole.type}`,
      contentType: fileContentTypes[whole.type],
      ...whole,
    });
  }
  return uploads;
}

/** What the limits are checked on: each file a submission sends (its uploads and its response document). */
export interface SentFile {
  /** How the refusal names it: the file's id and name, or the response document. */
  label: string;
  size: number;
  pages: number | null;
}

/** The upload as the refusal names it: its file, or the files merged into it. */
export function sentFile(upload: SlotUpload): SentFile {
  const [only] = upload.files;
  if (upload.files.length === 1 && only) return { ...sentAttached(only), size: upload.bytes.length };
  const names = upload.files.map((file) => `${file.id} (${file.filename})`);
  return {
    label: `The ${upload.slot} files merged (${names.join(', ')})`,
    size: upload.bytes.length,
    pages: upload.pages,
  };
}

/** A file sent on its own, as it is (processors whose slots take many files: Braintree, Vantiv). */
export const sentAttached = (file: AttachedFile): SentFile => ({
  label: `The file ${file.id} (${file.filename})`,
  size: file.size,
  pages: file.pages,
});

/** The response document as the refusal names it. */
export const sentDocument = (document: ResponsePackage['document']): SentFile => ({
  label: `The response document (${document.filename})`,
  size: document.pdf.length,
  pages: null,
});

/**
 * Refuses, permanently, a submission that sends a file over the processor's size or page limit, or files
 * over its count or total: the message names the file and the limit. Called before the first call, so
 * nothing is sent.
 */
export function checkEvidenceLimits(
  processor: string,
  limits: EvidenceLimits,
  sent: readonly SentFile[],
): void {
  const refuse = (message: string) =>
    new ProcessorError(processor, `${message}; nothing was sent.`, { retryable: false });
  for (const file of sent) {
    if (limits.maxFileBytes !== null && file.size > limits.maxFileBytes) {
      throw refuse(
        `${file.label} is ${file.size} bytes, over the processor's limit of ${sizeOf(limits.maxFileBytes)} a file`,
      );
    }
    if (limits.maxPages !== null && file.pages !== null && file.pages > limits.maxPages) {
      throw refuse(
        `${file.label} has ${file.pages} pages, over the processor's limit of ${limits.maxPages} pages`,
      );
    }
  }
  const maxFiles = limits.maxFiles ?? null;
  if (maxFiles !== null && sent.length > maxFiles) {
    throw refuse(`The submission sends ${sent.length} files, over the processor's limit of ${maxFiles}`);
  }
  const total = sent.reduce((sum, file) => sum + file.size, 0);
  if (limits.maxTotalBytes !== null && total > limits.maxTotalBytes) {
    throw refuse(
      `The files of the submission are ${total} bytes together, over the processor's limit of ${sizeOf(limits.maxTotalBytes)} in all`,
    );
  }
}

/** `5 MB (5242880 bytes)`; below a megabyte, the bytes alone. */
const sizeOf = (bytes: number) =>
  bytes < 1024 * 1024 ? `${bytes} bytes` : `${Number((bytes / 1024 / 1024).toFixed(1))} MB (${bytes} bytes)`;
