import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Reading PDFs back in tests, with pdf.js: the document, and the text of its pages. */

export async function openPdf(pdf: Buffer | Uint8Array) {
  // pdf.js takes over the array it is given: a copy keeps the Buffer intact.
  return getDocument({ data: new Uint8Array(pdf) }).promise;
}

/** The text of each page as pdf.js extracts it, whitespace collapsed. */
export async function pageTexts(pdf: Buffer | Uint8Array): Promise<string[]> {
  const document = await openPdf(pdf);
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const content = await (await document.getPage(number)).getTextContent();
    const pieces = content.items.map((item) => ('str' in item ? item.str : ''));
    pages.push(pieces.join(' ').replace(/\s+/g, ' '));
  }
  await document.destroy();
  return pages;
}
