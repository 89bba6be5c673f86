import type { FontFace } from './fonts.js';

/**
 * Text into lines that fit a width: the engine's line breaking (documents/engine/layout.ts). Greedy, as a
 * reader expects of a form: words fill a line and the next word that does not fit starts the next one. A
 * word alone on its line may overhang its column by `overhang` points, into the gutter, rather than lose
 * its last letter to the next line (an email address in a narrow column). A word wider still breaks
 * instead of running off the page (a URL, an id, a cardholder's run of letters): after its last
 * punctuation that fits when that keeps most of the line, else between characters. Spaces where a line
 * breaks are not drawn; those that start a paragraph or a line the writer broke are (an indented list, as
 * Typst shows it too), unless the first word would not fit after them: then the word starts at the margin
 * (Typst keeps the spaces, on a line of their own or before the word's first piece).
 *
 * The text is shown as written, with what a page cannot show left out: the control characters (a tab is a
 * space), as in the Typst layout. Every line break a reader's text may carry ends a line: LF, CR, CRLF,
 * NEL, and the Unicode line and paragraph separators.
 */
export function wrapText(text: string, face: FontFace, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of shown(text).split(lineBreaks)) wrapParagraph(paragraph, face, size, width, lines);
  return lines;
}

/** Half the gutter between two columns (documents/engine/layout.ts). */
export const overhang = 4;

const lineBreaks = /\r\n|[\n\r\u0085\u2028\u2029]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters left out
const hidden = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g;

function shown(text: string): string {
  return text.replace(hidden, '').replaceAll('\t', ' ');
}

function wrapParagraph(paragraph: string, face: FontFace, size: number, width: number, lines: string[]) {
  const space = face.width(' ', size);
  let line = '';
  let lineWidth = 0;
  let first = true;
  // Words with the spaces before them: a line keeps the spaces between its words as written.
  for (const piece of paragraph.match(/ *[^ ]+| +$/g) ?? ['']) {
    const word = piece.trimStart();
    const gap = (piece.length - word.length) * space;
    const wordWidth = face.width(word, size);
    const indented = first && gap > 0 && gap + wordWidth <= width;
    first = false;
    if ((line !== '' || indented) && lineWidth + gap + wordWidth <= width) {
      line += piece;
      lineWidth += gap + wordWidth;
      continue;
    }
    if (line !== '') lines.push(line);
    if (wordWidth <= width + overhang) {
      line = word;
      lineWidth = wordWidth;
      continue;
    }
    // Too wide for any line: broken between characters, the last piece left open for what follows.
    const pieces = breakWord(word, face, size, width);
    lines.push(...pieces.slice(0, -1));
    line = pieces.at(-1) ?? '';
    lineWidth = face.width(line, size);
  }
  lines.push(line);
}

function breakWord(word: string, face: FontFace, size: number, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let pieceWidth = 0;
  // Where the piece could break after punctuation, in UTF-16 units of the piece.
  let after = 0;
  for (const character of word) {
    const characterWidth = face.width(character, size);
    if (piece !== '' && pieceWidth + characterWidth > width) {
      const cut = after >= piece.length / 2 ? after : piece.length;
      pieces.push(piece.slice(0, cut));
      piece = piece.slice(cut);
      pieceWidth = face.width(piece, size);
      after = 0;
      // What was left after the punctuation may not hold this character too: then it is a line of its own.
      if (piece !== '' && pieceWidth + characterWidth > width) {
        pieces.push(piece);
        piece = '';
        pieceWidth = 0;
      }
    }
    piece += character;
    pieceWidth += characterWidth;
    if (breaksAfter.has(character)) after = piece.length;
  }
  pieces.push(piece);
  return pieces;
}

const breaksAfter = new Set(['-', '/', '.', '@', '_', '&', '?', '=', ',', ';', ':']);
