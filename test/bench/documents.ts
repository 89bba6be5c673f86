import { defaultSubmissionConcurrency } from '../../src/config.js';
import { drawEvidence } from '../../src/documents/engine/layout.js';
import { writePdf } from '../../src/documents/engine/pdf-writer.js';
import { renderByTypst, renderPdf } from '../../src/documents/pdf.js';
import { defaultRenderThreads, RenderPool } from '../../src/documents/render-pool.js';
import {
  buildEvidenceDocument,
  type EvidenceDocument,
  type EvidenceDocumentInput,
} from '../../src/domain/evidence-document.js';
import { imageSize } from '../../src/domain/image-size.js';
import { fullSubmission } from '../helpers/evidence-documents.js';
import { samplePdf, samplePng } from '../helpers/evidence-files.js';
import { describeMachine, quick, resultLine, runBench } from './lib/harness.js';

/**
 * Evidence documents: disputes with 10 products, 10 messages, 10 past payments and a template with filled
 * fields (the reference document, three pages), each under an id of its own.
 *
 * 1. Through the render pool at its default size (a thread a core, at most four), as submissions render
 *    (as many at a time as the default SUBMISSION_CONCURRENCY): the documents/s of the RESULT line, and the
 *    process's peak resident memory meanwhile.
 * 2. On this thread, in alternating rounds so that other work on the machine weighs on both: the renderer
 *    (the model built, its text tested for what the engine draws, laid out and written as PDF:
 *    documents/pdf.ts) against the bare engine (documents/engine/: the layout and the PDF writer on a
 *    model built beforehand). Their ratio, the RESULT's, is what the renderer costs over the engine
 *    itself; target 0.8. Typst, which draws the documents the engine does not, on the same models, for
 *    reference.
 * 3. The reference document with files: a receipt image (PNG, 600 × 400) drawn in it and a 3-page PDF
 *    appended, through the pool as in 1: the `documents_files` RESULT, whose ratio is its rate over 1's
 *    (target 0.5: the image and the merge cost at most as much again as the document).
 */

const documentCount = quick ? 300 : 1_200;
/** Typst, for reference only, on fewer: it takes ten times as long. */
const typstCount = documentCount / 10;
/** Documents each thread renders before the clock starts: compiled code, as in a service that has run a while. */
const warmUp = 30;
const rounds = 6;
const perRound = documentCount / rounds;
const target = 0.8;

await runBench(async () => {
  const threads = defaultRenderThreads();
  console.log(
    `documents bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${documentCount} disputes of 10 products, ` +
      `10 messages and 10 past payments; pool of ${threads} render threads, then ${rounds} alternating rounds`,
  );
  const startRss = process.memoryUsage().rss;

  // 1. The pool, as the service runs it; warmed by `warmUp` documents a thread (fonts read, code loaded
  // and compiled).
  const pool = new RenderPool({ threads, timeoutMs: 30_000 });
  await Promise.all(
    Array.from({ length: threads * warmUp }, (_, index) =>
      pool.render(buildEvidenceDocument(submission(-1 - index)), 'bench'),
    ),
  );
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  let started = performance.now();
  // At most as many renders in hand as a process has submissions running (SUBMISSION_CONCURRENCY),
  // each PDF checked and let go as it comes: the memory is the pool's, not a backlog the service never has.
  let pdfBytes = 0;
  let next = 0;
  const inHand = Array.from({ length: defaultSubmissionConcurrency }, async () => {
    for (let index = next++; index < documentCount; index = next++) {
      // Made as it is rendered, as a service reads a submission: the memory measured is the renderer's, not
      // the bench's own inputs.
      const input = submission(index);
      const pdf = await pool.render(buildEvidenceDocument(input), 'bench');
      if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new Error(`${input.dispute.id}: not a PDF`);
      pdfBytes += pdf.length;
    }
  });
  await Promise.all(inHand);
  const poolMs = performance.now() - started;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await pool.close();

  // 2. The renderer against the bare engine, on this thread: the engine draws documents of its own, from
  // models built beforehand. Then Typst, which draws what the engine does not, on some of the same
  // documents for reference: its cache is the process's, swept as the renderer sweeps it.
  const inputs = Array.from({ length: documentCount }, (_, index) => submission(index));
  const models = inputs.map((_, index) => buildEvidenceDocument(submission(documentCount + index)));
  const split = { layout: 0, pdf: 0 };
  const bareRender = (index: number) => {
    let at = performance.now();
    const drawing = drawEvidence(models[index] as EvidenceDocument, []);
    split.layout += performance.now() - at;
    at = performance.now();
    const pdf = writePdf(drawing);
    split.pdf += performance.now() - at;
    return pdf;
  };
  const typstRender = (index: number) => renderByTypst(models[index] as EvidenceDocument);
  for (let index = 0; index < warmUp; index++) {
    renderPdf(buildEvidenceDocument(submission(-1 - index)));
    bareRender(index);
  }
  typstRender(0);
  split.layout = 0;
  split.pdf = 0;
  const ms = { renderer: 0, bare: 0, typst: 0 };
  for (let round = 0; round < rounds; round++) {
    const indexes = Array.from({ length: perRound }, (_, at) => round * perRound + at);
    started = performance.now();
    for (const index of indexes) renderPdf(buildEvidenceDocument(inputs[index] as EvidenceDocumentInput));
    ms.renderer += performance.now() - started;
    started = performance.now();
    for (const index of indexes) bareRender(index);
    ms.bare += performance.now() - started;
  }
  // Typst after, not between: its native memory and cache sweeps would weigh on the next round measured.
  started = performance.now();
  for (let index = 0; index < typstCount; index++) typstRender(index);
  ms.typst = performance.now() - started;

  // What the renderer adds to the engine: the model, and the test of what the engine draws.
  started = performance.now();
  for (const input of inputs) buildEvidenceDocument(input);
  const modelMs = performance.now() - started;

  const rate = (elapsed: number) => documentCount / (elapsed / 1000);
  const each = (elapsed: number) => `${(elapsed / documentCount).toFixed(2)} ms`;
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  const kib = pdfBytes / documentCount / 1024;
  console.log(
    `pool      ${rate(poolMs).toFixed(1).padStart(7)} docs/s  (${threads} threads; ${kib.toFixed(1)} KiB a document)`,
  );
  console.log(
    `renderer  ${rate(ms.renderer).toFixed(1).padStart(7)} docs/s  (${(ms.renderer / documentCount).toFixed(1)} ms a document, one thread)`,
  );
  console.log(
    `bare      ${rate(ms.bare).toFixed(1).padStart(7)} docs/s  (${(ms.bare / documentCount).toFixed(1)} ms a document, one thread)`,
  );
  console.log(
    `typst     ${(typstCount / (ms.typst / 1000)).toFixed(1).padStart(7)} docs/s  (${(ms.typst / typstCount).toFixed(1)} ms a document, one thread, ${typstCount} documents: what draws the rest)`,
  );
  console.log(`a document: model ${each(modelMs)}, layout ${each(split.layout)}, PDF ${each(split.pdf)}`);
  console.log(
    `peak memory while the pool rendered: ${mib(peakRss)} MiB resident (${mib(startRss)} MiB before; limit 300 MiB)`,
  );
  // 3. With files, through a fresh pool as in 1.
  const filesPool = new RenderPool({ threads, timeoutMs: 30_000 });
  const files = await benchFiles();
  const withFiles = (index: number) =>
    buildEvidenceDocument({ ...submission(index), files: files.documentFiles });
  await Promise.all(
    Array.from({ length: threads * warmUp }, (_, index) =>
      filesPool.render(withFiles(-1 - index), 'bench', files.bytes),
    ),
  );
  started = performance.now();
  let filesBytes = 0;
  next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      for (let index = next++; index < documentCount; index = next++) {
        const pdf = await filesPool.render(withFiles(index), 'bench', files.bytes);
        filesBytes += pdf.length;
      }
    }),
  );
  const filesMs = performance.now() - started;
  await filesPool.close();
  console.log(
    `with files ${rate(filesMs).toFixed(1).padStart(6)} docs/s  (${threads} threads; one image, one 3-page PDF; ${(filesBytes / documentCount / 1024).toFixed(1)} KiB a document)`,
  );

  const ratio = rate(ms.renderer) / rate(ms.bare);
  console.log(`renderer: ${ratio.toFixed(3)} of the bare engine's rate (target ${target})`);
  console.log(resultLine('documents', rate(poolMs), 'docs/s', ratio, target));
  console.log(resultLine('documents_files', rate(filesMs), 'docs/s', rate(filesMs) / rate(poolMs), 0.5));
});

/** A receipt image drawn in the document and a 3-page PDF appended to it, neither in a processor slot. */
async function benchFiles() {
  const receipt = samplePng('Receipt 4711', 600, 400);
  const messages = await samplePdf('Customer messages', 3);
  const file = (id: string, type: 'png' | 'pdf', bytes: Buffer, pages: number | null) => ({
    id,
    category: 'uncategorized' as const,
    description: null,
    filename: `${id}.${type}`,
    type,
    pages,
    pixels: imageSize(bytes, type),
    slot: null,
  });
  return {
    documentFiles: [file('file_receipt', 'png', receipt, null), file('file_messages', 'pdf', messages, 3)],
    bytes: new Map([
      ['file_receipt', receipt],
      ['file_messages', messages],
    ]),
  };
}

/** The full submission under a dispute id of its own, so that no two documents are the same. */
function submission(index: number): EvidenceDocumentInput {
  const input = fullSubmission(10);
  return { ...input, dispute: { ...input.dispute, id: `du_bench_${String(index).padStart(5, '0')}` } };
}
