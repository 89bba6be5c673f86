import { z } from 'zod';
import { jsonArray, text } from './values.js';

/**
 * Evidence files (docs/api.md, "Files"): what a merchant uploads (receipts, delivery proofs,
 * screenshots) and names on a dispute with a category. The categories are this service's own; each
 * processor adapter maps them to its own slots (`EvidenceLimits.slots` in processors/types.ts), and a
 * category a processor has no slot for is shown in the response document instead.
 */

export const evidenceFileCategories = [
  'receipt',
  'shipping_documentation',
  'customer_communication',
  'customer_signature',
  'refund_policy',
  'cancellation_policy',
  'service_documentation',
  'duplicate_charge_documentation',
  'access_activity_log',
  'uncategorized',
] as const;
export type EvidenceFileCategory = (typeof evidenceFileCategories)[number];

/** What an uploaded file is, judged by its bytes. */
export const fileTypes = ['pdf', 'png', 'jpg'] as const;
export type FileType = (typeof fileTypes)[number];

export const fileContentTypes: Record<FileType, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
};

/** The largest file `POST /v1/files` takes. */
export const maxFileBytes = 5 * 1024 * 1024;
/** The most entries `evidence_files` holds. */
export const maxEvidenceFiles = 20;
/**
 * The most bytes the files one dispute names may add up to (docs/api.md, "Files"): the response document
 * merges them all, so this bounds what one render holds in memory.
 */
export const maxEvidenceFilesBytes = 20 * 1024 * 1024;

/** File ids are minted here: `file_` and 20 characters of base36 (ids.ts). */
export const fileId = z.string().regex(/^file_[0-9a-z]{20}$/, 'must be a file id (file_…)');

export const evidenceFileEntry = z.object({
  file: fileId,
  category: z.enum(evidenceFileCategories),
  description: text(1000).nullable().default(null),
});
export type EvidenceFileEntry = z.infer<typeof evidenceFileEntry>;

export const evidenceFiles = jsonArray(evidenceFileEntry, maxEvidenceFiles);

/**
 * A product's `image` URL as fetched when the evidence was saved (docs/api.md, "Files"): the file it was
 * kept as, or why it could not be fetched. The document draws the kept bytes, so that a preview and the
 * submission show the same image.
 */
export interface ProductImage {
  url: string;
  file: string | null;
  problem: string | null;
}

/** A file a submission carries: where it comes from on the dispute, and what it is evidence of. */
export interface FileReference {
  file: string;
  category: EvidenceFileCategory;
  description: string | null;
}

/**
 * The files a submission carries, in order: the dispute's `evidence_files`, then each template field of
 * type `file` that holds a file id, as `uncategorized` evidence described by the field's key. A file named
 * twice is carried once, where it is first named.
 */
export function fileReferences(
  evidence: { evidenceFiles?: readonly EvidenceFileEntry[]; fields: Readonly<Record<string, unknown>> },
  templateFields: readonly { key: string; type: string }[],
): FileReference[] {
  const references: FileReference[] = [...(evidence.evidenceFiles ?? [])];
  for (const field of templateFields) {
    const value = Object.hasOwn(evidence.fields, field.key) ? evidence.fields[field.key] : undefined;
    if (field.type === 'file' && typeof value === 'string') {
      references.push({ file: value, category: 'uncategorized', description: field.key });
    }
  }
  const seen = new Set<string>();
  return references.filter(({ file }) => !seen.has(file) && seen.add(file));
}

/**
 * What a processor takes as evidence, checked before anything is sent and shown as the preview's warnings
 * (docs/api.md, "Files"). From the processor's public documentation; each adapter keeps its own
 * (`ProcessorAdapter.evidenceLimits`, processors/types.ts).
 */
export interface EvidenceLimits {
  /**
   * The processor's own slot for each category it takes files in (its field or document type name). A
   * category without one is shown in the response document rather than sent on its own.
   */
  slots: Partial<Record<EvidenceFileCategory, string>>;
  /** The file types the slots take. */
  types: readonly FileType[];
  /** The largest file one slot takes, in bytes; null: no documented limit. */
  maxFileBytes: number | null;
  /** The most all files of one submission (the response document included) may weigh; null: none. */
  maxTotalBytes: number | null;
  /** The most pages a PDF may have; null: none. */
  maxPages: number | null;
  /**
   * The most files one submission may carry, the response document included; absent or null: none
   * (portal processors whose upload form counts files: Amex, Worldpay).
   */
  maxFiles?: number | null;
  /** The longest text the processor keeps in an evidence field, by evidence key; `*` for any other. */
  textLimits: Readonly<Record<string, number>>;
}

/**
 * The processor slot a file is sent in on its own: its category has one and the slot takes its type.
 * Null: the file is in the response document instead (an image drawn, a PDF's pages appended).
 */
export function slotOf(
  limits: Pick<EvidenceLimits, 'slots' | 'types'>,
  file: { category: EvidenceFileCategory; type: FileType },
): string | null {
  const slot = limits.slots[file.category];
  return slot && limits.types.includes(file.type) ? slot : null;
}
