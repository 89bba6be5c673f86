import { PDFDocument } from 'pdf-lib';
import { documentGeometry } from '../domain/document-geometry.js';
import type { AttachedFile } from './types.js';

/**
 * Several evidence files as one PDF, for a processor slot that takes one file (Stripe's evidence file
 * fields, Checkout.com's `*_file` fields): a PDF's pages are appended as they are, an image becomes a page
 * of its own (the response document's US Letter, turned to the image's orientation), scaled down to fit
 * within the margins and centred, never enlarged. The same files give the same bytes on every attempt
 * (no dates, no producer: `updateMetadata: false`), so a retry under an idempotency key that compares the
 * request byte for byte is the request the processor saw first.
 */

const margin = 36;

/** The merged PDF and its page count: the files' pages in order, one for each image. */
export async function mergeFiles(
  files: readonly Pick<AttachedFile, 'type' | 'bytes'>[],
): Promise<{ bytes: Buffer; pages: number }> {
  const merged = await PDFDocument.create({ updateMetadata: false });
  for (const file of files) {
    if (file.type === 'pdf') {
      const source = await PDFDocument.load(file.bytes, { updateMetadata: false });
      for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page);
      continue;
    }
    const image = file.type === 'png' ? await merged.embedPng(file.bytes) : await merged.embedJpg(file.bytes);
    const { pageWidth, pageHeight } = documentGeometry;
    const [width, height] = image.width > image.height ? [pageHeight, pageWidth] : [pageWidth, pageHeight];
    const scale = Math.min(1, (width - 2 * margin) / image.width, (height - 2 * margin) / image.height);
    const drawn = { width: image.width * scale, height: image.height * scale };
    merged.addPage([width, height]).drawImage(image, {
      x: (width - drawn.width) / 2,
      y: (height - drawn.height) / 2,
      ...drawn,
    });
  }
  return { bytes: Buffer.from(await merged.save()), pages: merged.getPageCount() };
}
