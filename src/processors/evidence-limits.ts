import { type AttachedFile, type EvidenceLimits, ProcessorError, type ResponsePackage } from './types.js';

/**
 * A processor that takes no file of its own: every evidence file is shown in the response document
 * (images drawn, PDFs as pages of their own), which goes wherever the processor takes it.
 */
export const documentOnly: EvidenceLimits = {
  slots: {},
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: null,
  maxTotalBytes: null,
  maxPages: null,
  textLimits: {},
};

/** A file the processor takes on its own, with the slot it goes in. */
export interface SlottedFile {
  file: AttachedFile;
  slot: string;
}

/**
 * The files a processor takes in its own slots, in the order given: a slot for the file's category and a
 * type the slots take. The others are shown in the response document only.
 */
export function slottedFiles(limits: EvidenceLimits, files: readonly AttachedFile[]): SlottedFile[] {
  return files.flatMap((file) => {
    const slot = limits.slots[file.category];
    return slot && limits.types.includes(file.type) ? [{ file, slot }] : [];
  });
}

/**
 * Refuses, before anything is sent, a submission the processor would refuse for its files: a slotted file
 * or the response document over the processor's size or page limit, or all of them together over its
 * limits for one submission (files, bytes). Permanent: sending again cannot shrink a file.
 */
export function checkEvidenceLimits(
  processor: { name: string; label: string },
  limits: EvidenceLimits,
  sent: readonly SlottedFile[],
  document: ResponsePackage['document'],
): void {
  const refuse = (message: string) =>
    new ProcessorError(processor.name, `Not sent: ${message}`, { retryable: false });
  const pieces = [
    ...sent.map(({ file }) => ({
      what: `evidence file '${file.id}' (${file.filename})`,
      size: file.size,
      pages: file.pages,
    })),
    { what: `the response document (${document.filename})`, size: document.pdf.length, pages: null },
  ];
  for (const piece of pieces) {
    if (limits.maxFileBytes !== null && piece.size > limits.maxFileBytes) {
      throw refuse(
        `${piece.what} is ${bytes(piece.size)}, over ${processor.label}'s limit of ${bytes(limits.maxFileBytes)} a file.`,
      );
    }
    if (limits.maxPages !== null && piece.pages !== null && piece.pages > limits.maxPages) {
      throw refuse(
        `${piece.what} has ${piece.pages} pages, over ${processor.label}'s limit of ${limits.maxPages}.`,
      );
    }
  }
  const maxFiles = limits.maxFiles ?? null;
  if (maxFiles !== null && pieces.length > maxFiles) {
    throw refuse(
      `the evidence files and the response document are ${pieces.length} files, over ${processor.label}'s limit of ${maxFiles} a submission.`,
    );
  }
  const total = pieces.reduce((sum, piece) => sum + piece.size, 0);
  if (limits.maxTotalBytes !== null && total > limits.maxTotalBytes) {
    throw refuse(
      `the evidence files and the response document are ${bytes(total)} together, over ${processor.label}'s limit of ${bytes(limits.maxTotalBytes)} a submission.`,
    );
  }
}

const bytes = (count: number) => `${count.toLocaleString('en-US')} bytes`;
