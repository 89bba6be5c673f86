import { renderPdf } from '../../src/documents/pdf.js';
import {
  buildEvidenceDocument,
  documentText,
  type EvidenceDocumentInput,
} from '../../src/domain/evidence-document.js';
import { fullSubmission } from '../helpers/evidence-documents.js';
import { describeMachine, quick, resultLine, runBench } from './lib/harness.js';

/**
 * Evidence documents: 1,000 disputes (30 with --quick), each with 10 products, 10 messages, 10 past
 * payments and a template with filled fields, rendered from the dispute to a PDF (buildEvidenceDocument,
 * then documents/pdf.ts) and, in the same process, to plain text (buildEvidenceDocument, then
 * documentText), the RESULT's baseline: the ratio says what the PDF costs over the cheapest rendering of
 * the same content. The two alternate in rounds, so that other work on the machine weighs on both. Peak
 * memory is the process's maximum resident set. No target: the figures are reported only. A PDF takes
 * 50-90 ms on this project's 2-core machines, so --quick renders 30, a few seconds of the minute that
 * `npm run bench -- --quick` may take in all.
 */

const documentCount = quick ? 30 : 1_000;
const rounds = 10;
const perRound = documentCount / rounds;
const warmUp = 5;

await runBench(async () => {
  console.log(
    `documents bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${documentCount} disputes of 10 products, ` +
      `10 messages and 10 past payments, ${rounds} alternating rounds`,
  );
  const inputs = Array.from({ length: documentCount }, (_, index) => submission(index));
  const startRss = process.memoryUsage().rss;

  // Fonts loaded and code compiled before the clock starts.
  for (const input of inputs.slice(0, warmUp)) {
    await renderPdf(buildEvidenceDocument(input));
    documentText(buildEvidenceDocument(input));
  }

  const ms = { pdf: 0, text: 0 };
  let pdfBytes = 0;
  let textChars = 0;
  for (let round = 0; round < rounds; round++) {
    const share = inputs.slice(round * perRound, (round + 1) * perRound);
    let started = performance.now();
    for (const input of share) {
      const pdf = await renderPdf(buildEvidenceDocument(input));
      if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new Error(`${input.dispute.id}: not a PDF`);
      pdfBytes += pdf.length;
    }
    ms.pdf += performance.now() - started;
    started = performance.now();
    for (const input of share) {
      const text = documentText(buildEvidenceDocument(input));
      if (!text.includes(input.dispute.id)) throw new Error(`${input.dispute.id}: not in its text`);
      textChars += text.length;
    }
    ms.text += performance.now() - started;
  }

  const rate = (elapsed: number) => documentCount / (elapsed / 1000);
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  console.log(
    `PDF   ${rate(ms.pdf).toFixed(1).padStart(9)} docs/s  (${(ms.pdf / documentCount).toFixed(2)} ms a document, ` +
      `${(pdfBytes / documentCount / 1024).toFixed(1)} KiB on average)`,
  );
  console.log(
    `text  ${rate(ms.text).toFixed(1).padStart(9)} docs/s  (${(ms.text / documentCount).toFixed(3)} ms a document, ` +
      `${(textChars / documentCount / 1024).toFixed(1)} KiB on average)`,
  );
  console.log(`peak memory: ${mib(peakRss)} MiB resident (${mib(startRss)} MiB before rendering)`);
  const ratio = rate(ms.pdf) / rate(ms.text);
  console.log(`PDF: ${ratio.toFixed(4)} of the plain-text rate (report only, no target)`);
  console.log(resultLine('documents', rate(ms.pdf), 'docs/s', ratio, 0));
});

/** The full submission under a dispute id of its own, so that no two documents are the same. */
function submission(index: number): EvidenceDocumentInput {
  const input = fullSubmission(10);
  return { ...input, dispute: { ...input.dispute, id: `du_bench_${String(index).padStart(5, '0')}` } };
}
