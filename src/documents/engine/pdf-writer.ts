import { deflateSync } from 'node:zlib';
import { ByteSink } from './byte-sink.js';
import type { Drawing, DrawOp, FontStyle, Rgb } from './drawing.js';
import { fontFace } from './fonts.js';
import { FontUse, writeFont } from './pdf-fonts.js';
import { writeImage } from './pdf-images.js';
import { num, PdfObjects, pdfDate, textString } from './pdf-objects.js';

/**
 * The document engine's PDF writer: a `Drawing` (documents/engine/drawing.ts) as PDF bytes, the same
 * bytes for the same drawing. Text is one hex string a text operation, every character a two-byte CID
 * of a subset of Noto Sans (documents/engine/pdf-fonts.ts), spaces included, so extractors find the words
 * and the gaps as drawn. Images are written once however many pages draw them. Throws `Undrawable` for
 * what it cannot draw (an image it does not read), for the renderer to fall back to Typst.
 */

// Measured (docs/contributing.md "Response documents: figures and profiles"): in Node's zlib, level 2
// writes a three-page document faster than level 1 (whose matching is cruder and leaves more to encode)
// and 13% smaller; level 3 is 6% smaller again and 8% slower.
const deflateLevel = 2;

// The content streams' buffer, reused from document to document (writing is synchronous).
const sink = new ByteSink();

const fontNames: Record<FontStyle, string> = { regular: 'F1', bold: 'F2' };

export function writePdf(drawing: Drawing): Buffer {
  if (drawing.pages.length === 0) throw new Error('a drawing of no pages');
  const objects = new PdfObjects();
  const catalog = objects.allocate();
  const pagesNumber = objects.allocate();
  const info = objects.allocate();
  const resources = objects.allocate();
  const fonts = new Map<FontStyle, FontUse>();
  const images = new Map<number, number>();
  const useFont = (style: FontStyle) => {
    let use = fonts.get(style);
    if (!use) {
      use = new FontUse(fontFace(style));
      fonts.set(style, use);
    }
    return use;
  };

  const kids: number[] = [];
  const box = `[0 0 ${num(drawing.width)} ${num(drawing.height)}]`;
  for (const operations of drawing.pages) {
    const page = objects.allocate();
    const contents = objects.allocate();
    kids.push(page);
    for (const op of operations) {
      if (op.kind !== 'image' || images.has(op.image)) continue;
      const source = drawing.images[op.image];
      if (!source) throw new Error(`a drawing's image ${op.image} that it does not have`);
      images.set(op.image, writeImage(objects, source, deflateLevel));
    }
    sink.reset();
    contentStream(sink, operations, drawing.height, useFont);
    objects.stream(contents, '/Filter /FlateDecode', deflateSync(sink.bytes(), { level: deflateLevel }));
    objects.object(
      page,
      `<</Type /Page /Parent ${pagesNumber} 0 R /MediaBox ${box} /Resources ${resources} 0 R ` +
        `/Contents ${contents} 0 R>>`,
    );
  }

  let fontEntries = '';
  for (const style of ['regular', 'bold'] as const) {
    const use = fonts.get(style);
    if (use) fontEntries += `/${fontNames[style]} ${writeFont(objects, use, deflateLevel)} 0 R `;
  }
  let imageEntries = '';
  for (const [index, number] of [...images].sort(([a], [b]) => a - b))
    imageEntries += `/Im${index} ${number} 0 R `;
  objects.object(
    resources,
    `<</ProcSet [/PDF /Text /ImageC /ImageB /ImageI] /Font <<${fontEntries}>> /XObject <<${imageEntries}>>>>`,
  );
  objects.object(
    pagesNumber,
    `<</Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length}>>`,
  );
  objects.object(catalog, `<</Type /Catalog /Pages ${pagesNumber} 0 R>>`);
  objects.object(
    info,
    `<</Title ${textString(drawing.title)} /Author ${textString(drawing.author)} ` +
      `/Creator (Rebuttal) /Producer (Rebuttal document engine) /CreationDate (${pdfDate(drawing.created)})>>`,
  );
  return objects.finish(catalog, info);
}

/**
 * A page's content stream, into `sink`. The drawing's y runs down from the top, PDF's up from the
 * bottom: every y is `height - y`. Font, colour and line width are set only when they change; text
 * objects (BT … ET) are closed only for rules and images, which may not appear inside one.
 */
function contentStream(
  sink: ByteSink,
  operations: readonly DrawOp[],
  height: number,
  useFont: (style: FontStyle) => FontUse,
): void {
  let inText = false;
  let font: FontStyle | undefined;
  let size = Number.NaN;
  let fill: Rgb | undefined;
  let stroke: Rgb | undefined;
  let lineWidth = Number.NaN;
  for (const op of operations) {
    if (op.kind === 'text') {
      if (!inText) {
        sink.ascii('BT\n');
        inText = true;
      }
      if (op.font !== font || op.size !== size) {
        sink.ascii(`/${fontNames[op.font]} ${num(op.size)} Tf\n`);
        font = op.font;
        size = op.size;
      }
      if (!fill || !sameColour(fill, op.color)) {
        sink.ascii(`${rgb(op.color)} rg\n`);
        fill = op.color;
      }
      sink.ascii(`1 0 0 1 ${num(op.x)} ${num(height - op.y)} Tm <`);
      useFont(op.font).encode(op.text, sink);
      sink.ascii('> Tj\n');
      continue;
    }
    if (inText) {
      sink.ascii('ET\n');
      inText = false;
    }
    if (op.kind === 'rule') {
      if (op.width !== lineWidth) {
        sink.ascii(`${num(op.width)} w\n`);
        lineWidth = op.width;
      }
      if (!stroke || !sameColour(stroke, op.color)) {
        sink.ascii(`${rgb(op.color)} RG\n`);
        stroke = op.color;
      }
      sink.ascii(`${num(op.x1)} ${num(height - op.y1)} m ${num(op.x2)} ${num(height - op.y2)} l S\n`);
    } else {
      sink.ascii(
        `q ${num(op.width)} 0 0 ${num(op.height)} ${num(op.x)} ${num(height - op.y - op.height)} cm ` +
          `/Im${op.image} Do Q\n`,
      );
    }
  }
  if (inText) sink.ascii('ET\n');
}

function sameColour(a: Rgb, b: Rgb): boolean {
  return a === b || (a[0] === b[0] && a[1] === b[1] && a[2] === b[2]);
}

function rgb([red, green, blue]: Rgb): string {
  return `${num(red)} ${num(green)} ${num(blue)}`;
}
