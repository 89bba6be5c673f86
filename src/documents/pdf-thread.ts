import { parentPort } from 'node:worker_threads';
import type { EvidenceDocument } from '../domain/evidence-document.js';
import { renderPdf } from './pdf.js';

/** The body of a render thread (documents/render-pool.ts): one model in, its PDF's bytes out. */
export interface RenderTask {
  id: number;
  model: EvidenceDocument;
}

export type RenderAnswer = { id: number; pdf: Uint8Array } | { id: number; error: string };

parentPort?.on('message', async ({ id, model }: RenderTask) => {
  let answer: RenderAnswer;
  try {
    // A copy of the bytes of its own: a Buffer may be a view into a pool that must not be transferred.
    answer = { id, pdf: new Uint8Array(await renderPdf(model)) };
  } catch (error) {
    answer = { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(answer, 'pdf' in answer ? [answer.pdf.buffer as ArrayBuffer] : []);
});
