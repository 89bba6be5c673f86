import { createRequire } from 'node:module';
import { join } from 'node:path';
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import type { EvidenceDocument } from '../domain/evidence-document.js';
import { evidenceLayout } from './evidence-layout.js';

/**
 * The evidence document as a PDF, laid out by the Typst compiler (a native module) from the layout in
 * documents/evidence-layout.ts. The model goes in as JSON, which the layout reads as data. The same model
 * gives the same bytes: the file is dated by the model's `generatedAt`, never the clock.
 *
 * Synchronous and CPU-bound: call it from a render thread (documents/render-pool.ts), never the main one.
 */
export function renderPdf(model: EvidenceDocument): Buffer {
  const typst = compiler();
  typst.mapShadow(modelPath, Buffer.from(JSON.stringify(model)));
  let pdf: Buffer;
  try {
    // Compiled and written in one call: a compiled document handed to JavaScript holds megabytes of
    // native memory that V8 does not see, and so does not collect in time.
    pdf = typst.pdf(
      { mainFileContent: evidenceLayout },
      { creationTimestamp: Math.floor(model.generatedAt.getTime() / 1000) },
    );
  } catch {
    // That call says only that it failed; compiling again says why.
    const compiled = typst.compile({ mainFileContent: evidenceLayout });
    throw new Error(`Typst could not lay out the document: ${diagnostics(compiled)}`);
  }
  // Typst memoises what it computes, in one cache for the process (about 5 MB a reference document).
  // What the last few documents did not use goes, every few documents: sweeping costs as much as laying
  // out a short document, and never sweeping lets the cache grow without end.
  rendered += 1;
  if (rendered % sweepEvery === 0) typst.evictCache(1);
  return pdf;
}

/** The folder Typst sees, in memory only; the layout reads the model from `/document.json` in it. */
const workspace = '/rebuttal';
export const modelPath = `${workspace}/document.json`;
const sweepEvery = 4;
let rendered = 0;

/** How the renderer's compiler is made (the documents bench makes a bare one the same way). */
export const compilerOptions = () => ({ workspace, fontArgs: [{ fontPaths: fontFolders() }] });

let shared: NodeCompiler | undefined;

function compiler(): NodeCompiler {
  shared ??= NodeCompiler.create(compilerOptions());
  return shared;
}

function diagnostics(compiled: ReturnType<NodeCompiler['compile']>): string {
  const error = compiled.takeDiagnostics() ?? compiled.takeError();
  return error ? JSON.stringify(error.shortDiagnostics) : 'no diagnostics';
}

/**
 * The folders of the fonts, from npm packages (nothing is fetched at run time): Noto Sans (Latin, Greek,
 * Cyrillic), Noto Sans SC (Chinese, Japanese kana), Noto Sans KR (Korean), Noto Sans Hebrew, Noto Naskh
 * Arabic and Noto Emoji. The layout names the families in that order and Typst takes each character from
 * the first that has it (from the machine's own fonts only for a character none of them has). Typst reads
 * a font only when a document uses it: a thread that renders only Latin text never loads the CJK fonts.
 */
function fontFolders(): string[] {
  const require = createRequire(import.meta.url);
  // The packages export their scripts, not their folders: a folder is found from the main script.
  const folder = (name: string, path: string) => {
    const main = require.resolve(name);
    return join(main.slice(0, main.lastIndexOf(name) + name.length), path);
  };
  return [
    folder('@embedpdf/fonts-latin', 'fonts'),
    folder('@embedpdf/fonts-sc', 'fonts'),
    folder('@embedpdf/fonts-kr', 'fonts'),
    folder('@embedpdf/fonts-hebrew', 'fonts'),
    folder('@embedpdf/fonts-arabic', 'fonts'),
    folder('@expo-google-fonts/noto-emoji', '400Regular'),
  ];
}
