import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Reading PDFs back in tests, with pdf.js: the document, and the text of its pages. */

export async function openPdf(pdf: Buffer | Uint8Array) {
  // pdf.js takes over the array it is given: a copy keeps the Buffer intact.
  return getDocument({ data: new Uint8Array(pdf) }).promise;
}

/**
 * The text of each page as pdf.js extracts it: its pieces in order (pdf.js gives the gaps between words
 * and cells as pieces of their own), a line's end as a line break.
 */
export async function pageLines(pdf: Buffer | Uint8Array): Promise<string[]> {
  const document = await openPdf(pdf);
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const content = await (await document.getPage(number)).getTextContent();
    pages.push(
      content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''),
    );
  }
  await document.destroy();
  return pages;
}

/** The text of each page, whitespace (line breaks included) collapsed. */
export async function pageTexts(pdf: Buffer | Uint8Array): Promise<string[]> {
  return (await pageLines(pdf)).map((page) => page.replace(/\s+/g, ' ').trim());
}

/** The first page's pieces of text, each with its baseline's height from the page's foot, as pdf.js reads them. */
export async function firstPageBaselines(pdf: Buffer | Uint8Array): Promise<{ text: string; y: number }[]> {
  const document = await openPdf(pdf);
  const content = await (await document.getPage(1)).getTextContent();
  await document.destroy();
  return content.items.flatMap((item) =>
    'str' in item && item.str.trim() !== ''
      ? [{ text: item.str.trim(), y: item.transform[5] as number }]
      : [],
  );
}

/** How many image XObjects each page of the PDF draws. */
export async function imagesDrawn(pdf: Buffer): Promise<number[]> {
  const document = await openPdf(pdf);
  const counts: number[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const operators = await (await document.getPage(number)).getOperatorList();
    counts.push(operators.fnArray.filter((op) => op === OPS.paintImageXObject).length);
  }
  await document.destroy();
  return counts;
}

/** Which engine drew a response document (documents/pdf.ts): from the file's Producer or Creator. */
export async function drawnBy(pdf: Buffer): Promise<'engine' | 'typst'> {
  const document = await openPdf(pdf);
  const { info } = (await document.getMetadata()) as { info: { Producer?: string; Creator?: string } };
  await document.destroy();
  if (info.Producer === 'Rebuttal document engine') return 'engine';
  if (info.Creator?.startsWith('Typst ')) return 'typst';
  throw new Error(`drawn by neither engine: ${JSON.stringify(info)}`);
}
