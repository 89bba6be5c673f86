import { parentPort } from 'node:worker_threads';
import type { EvidenceDocument } from '../domain/evidence-document.js';
import { type FileBytes, renderDocument } from './pdf.js';

/**
 * The body of a render thread (documents/render-pool.ts): one model and the bytes of the files it shows
 * in (moved here, not copied again), its PDF's bytes out.
 */
export interface RenderTask {
  id: number;
  model: EvidenceDocument;
  files: FileBytes;
  /** Whether the answer counts the PDF's pages (null when not counted). */
  countPages: boolean;
}

export type RenderAnswer =
  | { id: number; pdf: Uint8Array; pages: number | null }
  | { id: number; error: string };

parentPort?.on('message', async ({ id, model, files, countPages }: RenderTask) => {
  let answer: RenderAnswer;
  try {
    // A copy of the bytes of its own: a Buffer may be a view into a pool that must not be transferred.
    const { pdf, pages } = await renderDocument(model, files, countPages);
    answer = { id, pdf: new Uint8Array(pdf), pages };
  } catch (error) {
    answer = { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(answer, 'pdf' in answer ? [answer.pdf.buffer as ArrayBuffer] : []);
});
