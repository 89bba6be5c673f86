import type { EvidenceFileCategory, EvidenceLimits, FileType } from './evidence-files.js';
import { slotOf } from './evidence-files.js';
import { humanize } from './evidence-format.js';

/**
 * What a dispute's processor will cut or refuse of its evidence (docs/api.md, "Preview"), from the
 * processor's limits (`EvidenceLimits`), the evidence dictionary, the files and the rendered document.
 * Pure. The preview lists every warning; `refuses` tells the ones whose submission fails. The refusal
 * itself is the adapter's, made on what it would actually send (several files merged into one slot
 * included) before its first call (processors/slot-uploads.ts, checkEvidenceLimits).
 */

export interface EvidenceWarning {
  code: EvidenceWarningCode;
  message: string;
  /** The evidence key the warning is about, or the file's id; null for the submission as a whole. */
  field: string | null;
}

export type EvidenceWarningCode =
  | 'text_too_long'
  | 'file_too_large'
  | 'too_many_pages'
  | 'file_type_not_taken'
  | 'no_file_slot'
  | 'document_too_large'
  | 'total_too_large';

/** The warnings for which the processor refuses the submission: nothing is sent. */
const refusing = new Set<EvidenceWarningCode>([
  'file_too_large',
  'too_many_pages',
  'document_too_large',
  'total_too_large',
]);

export const refuses = (warning: EvidenceWarning) => refusing.has(warning.code);

/** A file as the warnings need it (an `AttachedFile` without its bytes). */
export interface WarnedFile {
  id: string;
  category: EvidenceFileCategory;
  filename: string;
  type: FileType;
  size: number;
  pages: number | null;
}

export interface WarningInput {
  /** The processor's name, for the messages. */
  processor: string;
  limits: EvidenceLimits;
  evidence: Readonly<Record<string, string | number | boolean>>;
  files: readonly WarnedFile[];
  /**
   * The rendered response document, which goes as one more file. Its pages are null where not counted
   * (the submission runner counts none: a stored document is sent as it was rendered).
   */
  document: { bytes: number; pages: number | null };
}

const count = (value: number) => value.toLocaleString('en-US');

export function evidenceWarnings(input: WarningInput): EvidenceWarning[] {
  const { processor, limits, evidence, files, document } = input;
  const warnings: EvidenceWarning[] = [];
  for (const [key, value] of Object.entries(evidence)) {
    const limit = Object.hasOwn(limits.textLimits, key) ? limits.textLimits[key] : limits.textLimits['*'];
    const length = String(value).length;
    if (limit !== undefined && length > limit) {
      const message = `${key} is ${count(length)} characters; ${processor} keeps at most ${count(limit)} and cuts the rest.`;
      warnings.push({ code: 'text_too_long', message, field: key });
    }
  }
  let total = document.bytes;
  for (const file of files) {
    const name = `'${file.filename}' (${humanize(file.category)})`;
    const slot = slotOf(limits, file);
    const warn = (code: EvidenceWarningCode, message: string) =>
      warnings.push({ code, message: `${name} ${message}`, field: file.id });
    if (!slot) {
      if (limits.slots[file.category]) {
        warn(
          'file_type_not_taken',
          `is ${file.type}, which ${processor} does not take: it is shown in the response document instead.`,
        );
      } else if (Object.keys(limits.slots).length > 0) {
        // Only where the processor takes some files on their own: where it takes none, every file is in
        // the document by design, and saying so of each would be noise.
        warn('no_file_slot', `has no ${processor} slot of its own: it is shown in the response document.`);
      }
      continue;
    }
    total += file.size;
    if (limits.maxFileBytes !== null && file.size > limits.maxFileBytes) {
      warn(
        'file_too_large',
        `is ${count(file.size)} bytes; ${processor} takes at most ${count(limits.maxFileBytes)} a file.`,
      );
    }
    if (limits.maxPages !== null && file.pages !== null && file.pages > limits.maxPages) {
      warn(
        'too_many_pages',
        `has ${count(file.pages)} pages; ${processor} takes at most ${count(limits.maxPages)}.`,
      );
    }
  }
  const documentProblem = (message: string) =>
    warnings.push({ code: 'document_too_large', message: `The response document ${message}`, field: null });
  if (limits.maxFileBytes !== null && document.bytes > limits.maxFileBytes) {
    documentProblem(
      `is ${count(document.bytes)} bytes; ${processor} takes at most ${count(limits.maxFileBytes)} a file.`,
    );
  }
  if (limits.maxPages !== null && document.pages !== null && document.pages > limits.maxPages) {
    documentProblem(
      `has ${count(document.pages)} pages; ${processor} takes at most ${count(limits.maxPages)}.`,
    );
  }
  if (limits.maxTotalBytes !== null && total > limits.maxTotalBytes) {
    warnings.push({
      code: 'total_too_large',
      message: `The files and the response document weigh ${count(total)} bytes; ${processor} takes at most ${count(limits.maxTotalBytes)} in all.`,
      field: null,
    });
  }
  return warnings;
}
