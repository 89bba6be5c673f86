import { glyphWidth } from './glyph-widths.js';

/**
 * How much room text takes in the response document, estimated from Noto Sans' widths without laying it
 * out: what the size measure counts pages with (domain/document-size.ts), and what an image's room on its
 * page leaves for its caption (domain/evidence-attachments.ts).
 */

/** A line of body text, as the layout's pages measure it, rounded up. */
export const bodyLine = 12.5;

/** Every way Typst breaks a line: LF, CR (alone or before LF), NEL, the line and paragraph separators. */
const lineBreak = /\r\n|[\n\r\u0085\u2028\u2029]/;

function isLineBreak(code: number, next: number): boolean {
  if (code === 13) return next !== 10; // CR LF is one break, counted at the LF
  return code === 10 || code === 0x85 || code === 0x2028 || code === 0x2029;
}

export interface TextSize {
  ems: number;
  breaks: number;
}

/** The width of `text` (from `start` to `end`) in ems, and how many line breaks it holds. */
export function measureText(text: string, start = 0, end = text.length): TextSize {
  let ems = 0;
  let breaks = 0;
  for (let at = start; at < end; at += 1) {
    const code = text.charCodeAt(at);
    if (isLineBreak(code, text.charCodeAt(at + 1))) breaks += 1;
    else if (code !== 13) ems += glyphWidth(code);
  }
  return { ems, breaks };
}

/** Lines `text` wraps to in `width` points at `fontSize`: each of its own lines takes at least one. */
export function wrappedLines(text: string, width: number, fontSize: number): number {
  let lines = 0;
  for (const line of text.split(lineBreak)) {
    lines += Math.max(1, Math.ceil((measureText(line).ems * fontSize) / width));
  }
  return lines;
}
