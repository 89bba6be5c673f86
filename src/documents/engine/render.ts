import type { EvidenceDocument } from '../../domain/evidence-document.js';
import type { FileBytes } from '../pdf.js';
import { type ImageSource, Undrawable } from './drawing.js';
import { drawable } from './fonts.js';
import { drawEvidence } from './layout.js';
import { writePdf } from './pdf-writer.js';

/**
 * The evidence document as a PDF by the engine (documents/engine/layout.ts and pdf-writer.ts), or null
 * when Typst must lay it out (documents/pdf.ts): text the engine does not draw as written (a script it
 * does not shape, emoji, combining marks: `drawable`), or an image it does not read (`Undrawable`).
 * docs/architecture.md "Response documents" says why there are two.
 */
export function renderByEngine(model: EvidenceDocument, files: FileBytes): Buffer | null {
  if (!texts(model).every(drawable)) return null;
  const images: ImageSource[] = model.files.images.map(({ path, file }) => {
    const bytes = files.get(file);
    if (!bytes) throw new Error(`the bytes of ${file} are missing`);
    return { type: path.endsWith('.png') ? 'png' : 'jpg', bytes };
  });
  try {
    return writePdf(drawEvidence(model, images));
  } catch (error) {
    if (error instanceof Undrawable) return null;
    throw error;
  }
}

/** Every string the document shows (column labels as shown, in capitals). */
function texts(model: EvidenceDocument): string[] {
  const out = [model.title, model.subtitle, model.pageLabel];
  for (const { label, value } of model.summary) out.push(label, value);
  for (const block of model.blocks) {
    switch (block.kind) {
      case 'heading':
      case 'paragraph':
        out.push(block.text);
        break;
      case 'image':
        out.push(block.title, block.caption);
        break;
      case 'pairs':
        out.push(block.title);
        for (const { label, value } of block.rows) out.push(label, value);
        break;
      case 'table':
        out.push(block.table.title, ...block.table.columns.map((column) => column.label.toUpperCase()));
        for (const row of block.table.rows) out.push(...row.cells, row.detail ?? '');
        break;
      default:
        throw new Error(
          `The document engine cannot draw a block of kind ${JSON.stringify((block as { kind: unknown }).kind)}`,
        );
    }
  }
  return out;
}
