import { type AttachedFile, type EvidenceLimits, ProcessorError } from './types.js';

/**
 * Which of a submission's evidence files an adapter sends in its processor's own slots, and the check of
 * the processor's documented limits on them, made before the first call so that a submission is never
 * half-sent (docs/api.md, "Files").
 */

/** An evidence file with the processor's slot it goes in. */
export interface SlottedFile {
  file: AttachedFile;
  slot: string;
}

/**
 * The files with a slot for their category and a type the slots take (EvidenceLimits in types.ts), in
 * the submission's order; the response document shows the others.
 */
export function slottedFiles(limits: EvidenceLimits, files: readonly AttachedFile[]): SlottedFile[] {
  return files.flatMap((file) => {
    const slot = limits.slots[file.category];
    return slot !== undefined && limits.types.includes(file.type) ? [{ file, slot }] : [];
  });
}

/**
 * Refuses, permanently and naming the file and the limit, slotted files the processor would refuse: one
 * over the largest file, a PDF over the most pages, or all of them with the response document
 * (`documentBytes`) over the most a submission may weigh. Throws before anything is sent.
 */
export function refuseOverLimits(
  processor: { name: string; title: string },
  limits: EvidenceLimits,
  slotted: readonly SlottedFile[],
  documentBytes: number,
): void {
  const refuse = (message: string): never => {
    throw new ProcessorError(processor.name, message, { retryable: false });
  };
  for (const { file } of slotted) {
    const named = `Evidence file ${file.id} (${file.filename})`;
    if (limits.maxFileBytes !== null && file.size > limits.maxFileBytes) {
      refuse(
        `${named} is ${file.size} bytes; ${processor.title} takes at most ${limits.maxFileBytes} a file.`,
      );
    }
    if (limits.maxPages !== null && file.pages !== null && file.pages > limits.maxPages) {
      refuse(`${named} has ${file.pages} pages; ${processor.title} takes at most ${limits.maxPages}.`);
    }
  }
  const total = slotted.reduce((sum, { file }) => sum + file.size, documentBytes);
  if (limits.maxTotalBytes !== null && total > limits.maxTotalBytes) {
    const names = slotted.map(({ file }) => file.id).join(', ');
    refuse(
      `The evidence files (${names}) and the response document weigh ${total} bytes; ` +
        `${processor.title} takes at most ${limits.maxTotalBytes} for one dispute.`,
    );
  }
}
