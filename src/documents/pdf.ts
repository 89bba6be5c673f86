import { createRequire } from 'node:module';
import type { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import type { EvidenceDocument } from '../domain/evidence-document.js';
import { renderByEngine } from './engine/render.js';
import { evidenceLayout } from './evidence-layout.js';
import { fontFile } from './font-files.js';

/**
 * The evidence document as a PDF. The document engine (documents/engine/) draws it when it can: text in
 * the scripts its face draws as written and images it reads, which is nearly every document, ten times
 * faster than Typst. Typst lays out the rest (CJK, right-to-left text, emoji, combining marks; an image
 * encoding the engine does not read). docs/architecture.md "Response documents" says why there are two.
 * The same model gives the same bytes, whichever draws it: the file is dated by the model's
 * `generatedAt`, never the clock.
 *
 * Synchronous and CPU-bound: call it from a render thread (documents/render-pool.ts), never the main one.
 */
export function renderPdf(model: EvidenceDocument, files: FileBytes = new Map()): Buffer {
  return renderByEngine(model, files) ?? renderByTypst(model, files);
}

/**
 * The evidence document laid out by the Typst compiler (a native module) from the layout in
 * documents/evidence-layout.ts. The model goes in as JSON, which the layout reads as data.
 *
 * The images the model draws are mapped into Typst's in-memory workspace at the paths the model gives
 * them (`/files/0.png`, made by domain/evidence-attachments.ts, never from a merchant's text), from
 * `files` (bytes by file id), and unmapped after: no render sees another's files.
 */
export function renderByTypst(model: EvidenceDocument, files: FileBytes = new Map()): Buffer {
  const typst = compiler();
  typst.mapShadow(modelPath, Buffer.from(JSON.stringify(model)));
  const mapped: string[] = [];
  try {
    for (const { path, file } of model.files.images) {
      const bytes = files.get(file);
      if (!bytes) throw new Error(`the bytes of ${file} are missing`);
      mapped.push(workspace + path);
      typst.mapShadow(workspace + path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
    return layOut(typst, model);
  } finally {
    for (const path of mapped) typst.unmapShadow(path);
  }
}

function layOut(typst: NodeCompiler, model: EvidenceDocument): Buffer {
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

/** Files' bytes by file id, as a render thread receives them. */
export type FileBytes = ReadonlyMap<string, Uint8Array>;

/**
 * The whole response document: the laid-out PDF, then the pages of each attached PDF the model appends,
 * in order (copied with pdf-lib). The same model and files give the same bytes: nothing is dated or
 * stamped on the way (`updateMetadata: false`), so the file keeps the model's date. Its pages are counted
 * when appending, or when asked (`countPages`, the preview's figure); null otherwise.
 */
export async function renderDocument(
  model: EvidenceDocument,
  files: FileBytes = new Map(),
  countPages = false,
): Promise<{ pdf: Buffer; pages: number | null }> {
  const pdf = renderPdf(model, files);
  if (model.files.appended.length === 0 && !countPages) return { pdf, pages: null };
  // Loaded when first needed, as the compiler below: most documents need neither (about 6 MiB a thread each).
  const { PDFDocument } = await import('pdf-lib');
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  if (model.files.appended.length === 0) return { pdf, pages: document.getPageCount() };
  for (const file of model.files.appended) {
    const bytes = files.get(file);
    if (!bytes) throw new Error(`the bytes of ${file} are missing`);
    const attached = await PDFDocument.load(bytes, { updateMetadata: false });
    for (const page of await document.copyPages(attached, attached.getPageIndices())) document.addPage(page);
  }
  // Without object streams: writing them took twice as long as the rest of the merge.
  const merged = await document.save({ useObjectStreams: false });
  return { pdf: Buffer.from(merged), pages: document.getPageCount() };
}

/** The folder Typst sees, in memory only; the layout reads the model from `/document.json` in it. */
const workspace = '/rebuttal';
export const modelPath = `${workspace}/document.json`;
const sweepEvery = 4;
let rendered = 0;

/** How the renderer's compiler is made. */
const compilerOptions = () => ({ workspace, fontArgs: [{ fontPaths: fontFolders() }] });

let shared: NodeCompiler | undefined;

/**
 * The Typst compiler, its native module loaded with the first document that needs it: a thread that
 * only ever renders with the document engine never holds it.
 */
function compiler(): NodeCompiler {
  shared ??= (
    require(typstModule) as typeof import('@myriaddreamin/typst-ts-node-compiler')
  ).NodeCompiler.create(compilerOptions());
  return shared;
}

const require = createRequire(import.meta.url);
const typstModule = '@myriaddreamin/typst-ts-node-compiler';

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
  return [
    fontFile('@embedpdf/fonts-latin', 'fonts'),
    fontFile('@embedpdf/fonts-sc', 'fonts'),
    fontFile('@embedpdf/fonts-kr', 'fonts'),
    fontFile('@embedpdf/fonts-hebrew', 'fonts'),
    fontFile('@embedpdf/fonts-arabic', 'fonts'),
    fontFile('@expo-google-fonts/noto-emoji', '400Regular'),
  ];
}
