import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Drawing, DrawOp, FontStyle } from '../../src/documents/engine/drawing.js';
import { writePdf } from '../../src/documents/engine/pdf-writer.js';
import { openPdf, pageLines } from '../helpers/pdf-text.js';
import { ensurePoppler, poppler } from '../helpers/poppler.js';

/**
 * The document engine's PDF writer (documents/engine/pdf-writer.ts), on drawings made by hand: what it
 * draws reads back as drawn, in pdf.js and in poppler, and the same drawing is the same bytes.
 */

const created = new Date('2026-10-06T09:30:00Z');

/** One line of text per entry, 20 points apart, on pages of `perPage` lines. */
function textDrawing(lines: [string, FontStyle][], perPage = 30, size = 11): Drawing {
  const pages: DrawOp[][] = [];
  lines.forEach(([text, font], index) => {
    if (index % perPage === 0) pages.push([]);
    pages.at(-1)?.push({
      kind: 'text',
      x: 56,
      y: 60 + 20 * (index % perPage),
      size,
      font,
      color: [0.1, 0.1, 0.1],
      text,
    });
  });
  return { width: 595.28, height: 841.89, pages, images: [], title: 'Response', author: 'Rebuttal', created };
}

const scripts: [string, FontStyle][] = [
  ['Latin: The quick brown fox jumps over the lazy dog 0123456789', 'regular'],
  ['Latin Extended: Łukasz Zieliński, Müller Straße, café, naïve, Dvořák', 'bold'],
  ['Greek: Καλημέρα κόσμε, Ελληνικά', 'regular'],
  ['Cyrillic: Съешь же ещё этих мягких французских булок', 'bold'],
  ['PDF syntax: ( ) \\ < > [ ] { } % / and ) unbalanced ( \\) \\\\', 'regular'],
  ['a b', 'regular'],
  ['Prices €129.00 £45 ¥300 — “quoted” ‘single’ … •', 'bold'],
];

beforeAll(ensurePoppler);

describe('writePdf: text', () => {
  it('reads back in pdf.js exactly as drawn, in both faces', async () => {
    const pages = await pageLines(writePdf(textDrawing(scripts)));
    expect(pages).toEqual([scripts.map(([text]) => text).join('\n')]);
  });

  it('reads back in poppler exactly as drawn, with no complaint', () => {
    // -raw: in the content's order, spaces as drawn (the default layout mode guesses spaces from gaps,
    // and takes "a b" for a letter-spaced word).
    const { stdout, stderr } = poppler('pdftotext', writePdf(textDrawing(scripts)), '-raw', '-enc', 'UTF-8');
    expect(stderr).toBe('');
    expect(stdout).toBe(`${scripts.map(([text]) => text).join('\n')}\n\f`);
  });

  it('reads back any line of the scripts it draws exactly, spaces included (generated)', async () => {
    const alphabet = [
      ...'aąbcćdeęfghijklłmnńoóprsśtuvwxyzźżAĄBCĆDEĘFGHIJKLŁMNŃOÓPRSŚTUVWXYZŹŻ0123456789',
      ...'αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩάέήίόύώ',
      ...'абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ',
      ...'()\\<>[]{}%/#&*@!?.,;:\'"-–—€£$«»„“”…•·',
    ];
    const word = fc
      .array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 12 })
      .map((c) => c.join(''));
    const line = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(' '));
    const lines = fc.array(fc.tuple(line, fc.constantFrom<FontStyle>('regular', 'bold')), {
      minLength: 1,
      maxLength: 20,
    });
    await fc.assert(
      fc.asyncProperty(lines, async (drawn) => {
        // Small enough that the longest line fits the page: pdf.js leaves out text beyond its edge.
        const pages = await pageLines(writePdf(textDrawing(drawn, 30, 4)));
        expect(pages).toEqual([drawn.map(([text]) => text).join('\n')]);
      }),
      { numRuns: 60 },
    );
  });

  it('gives each character back as itself where characters share a glyph (the missing glyph here)', async () => {
    // Neither face has CJK or this mathematical letter: all three are glyph 0, yet each its own CID.
    const pages = await pageLines(writePdf(textDrawing([['中文 𝐀', 'regular']])));
    expect(pages).toEqual(['中文 𝐀']);
  });

  it('embeds one subset of each face used, as CID TrueType fonts with a ToUnicode map', () => {
    const { stdout, stderr } = poppler('pdffonts', writePdf(textDrawing(scripts)));
    expect(stderr).toBe('');
    const rows = stdout.trim().split('\n').slice(2);
    expect(rows.map((row) => row.replace(/^[A-Z]{6}\+/, '').replace(/\s+\d+\s+0$/, ''))).toEqual([
      'NotoSans-Regular              CID TrueType      Identity-H       yes yes yes',
      'NotoSans-Bold                 CID TrueType      Identity-H       yes yes yes',
    ]);
  });

  it('embeds only the faces a drawing uses', () => {
    const { stdout } = poppler('pdffonts', writePdf(textDrawing([['only bold', 'bold']])));
    expect(stdout.trim().split('\n').slice(2)).toHaveLength(1);
    expect(stdout).toContain('+NotoSans-Bold');
  });

  it('has the pages, their size and the information dictionary poppler reads', () => {
    const lines = Array.from({ length: 70 }, (_, index): [string, FontStyle] => [`Line ${index}`, 'regular']);
    const drawing = { ...textDrawing(lines), title: 'Réponse — dp_1 (copy)', author: 'Łukasz' };
    const { stdout, stderr } = poppler('pdfinfo', writePdf(drawing));
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Title: +Réponse — dp_1 \(copy\)$/m);
    expect(stdout).toMatch(/^Author: +Łukasz$/m);
    expect(stdout).toMatch(/^Pages: +3$/m);
    expect(stdout).toMatch(/^Page size: +595.28 x 841.89 pts \(A4\)$/m);
  });

  it('dates the file by the drawing, in UTC, and gives the same drawing the same bytes', async () => {
    const first = writePdf(textDrawing(scripts));
    expect(writePdf(textDrawing(scripts)).equals(first)).toBe(true);
    const document = await openPdf(first);
    const { info } = (await document.getMetadata()) as { info: { CreationDate?: string; Title?: string } };
    expect(info.CreationDate).toMatch(/^D:20261006093000Z/);
    expect(info.Title).toBe('Response');
    const page = await document.getPage(1);
    expect(page.view).toEqual([0, 0, 595.28, 841.89]);
    await document.destroy();
  });

  it('places text from the top of the page, and draws rules in their colour', async () => {
    const drawing: Drawing = {
      ...textDrawing([]),
      width: 200,
      height: 100,
      pages: [
        [
          { kind: 'text', x: 10, y: 30, size: 12, font: 'regular', color: [0, 0, 0], text: 'Top' },
          { kind: 'rule', x1: 10, y1: 60, x2: 190, y2: 60, width: 4, color: [1, 0, 0] },
          { kind: 'text', x: 10, y: 90, size: 12, font: 'bold', color: [0, 0, 1], text: 'Bottom' },
        ],
      ],
    };
    const document = await openPdf(writePdf(drawing));
    const content = await (await document.getPage(1)).getTextContent();
    const placed = content.items.flatMap((item) =>
      'str' in item && item.str.trim() ? [[item.str, item.transform[4], item.transform[5]]] : [],
    );
    expect(placed).toEqual([
      ['Top', 10, 70],
      ['Bottom', 10, 10],
    ]);
    await document.destroy();
  });
});

describe('writePdf: what the layout must not hand it', () => {
  it('refuses a coordinate that is not a number, and a drawing of no pages', () => {
    const drawing = textDrawing([['x', 'regular']]);
    const op = drawing.pages[0]?.[0] as DrawOp & { kind: 'text' };
    expect(() => writePdf({ ...drawing, pages: [[{ ...op, y: Number.NaN }]] })).toThrow(
      'a coordinate or size of NaN in a drawing',
    );
    expect(() => writePdf({ ...drawing, pages: [] })).toThrow('a drawing of no pages');
  });

  it('embeds the glyphs a short document draws, and all printable ASCII for one that draws half of them', () => {
    // The font file's stream: its /Length1 (the file's length) and its deflated bytes.
    const fontFile = (line: string) => {
      const text = writePdf(textDrawing([[line, 'regular']])).toString('latin1');
      const match = /\/Length1 (\d+) \/Filter \/FlateDecode[^>]*>>\s*stream\r?\n/.exec(text);
      if (!match) throw new Error('no font file');
      const start = match.index + match[0].length;
      return { length: Number(match[1]), bytes: text.slice(start, text.indexOf('endstream', start)) };
    };
    expect(fontFile('Delivered on 18 September.')).toEqual(fontFile('September 18 Delivered on.'));
    expect(fontFile('Lukasz').bytes).not.toBe(fontFile('Lukasz Z').bytes);
    expect(fontFile('Łukasz').bytes).not.toBe(fontFile('Lukasz').bytes);
    let ascii = '';
    for (let code = 0x20; code < 0x7f; code++) ascii += String.fromCharCode(code);
    // Glyph outlines are most of a font file: two glyphs are a small part of the 95 printable ones.
    expect(fontFile('ab').length).toBeLessThan(fontFile(ascii).length / 4);
    // Sixty of them: rounded up to all, the file longer documents in plain English share.
    expect(fontFile(ascii.slice(0, 60))).toEqual(fontFile(ascii));
    expect(fontFile(ascii.slice(0, 40)).length).toBeLessThan(fontFile(ascii).length);
    expect(fontFile(`${ascii.slice(0, 60)}Ł`).bytes).not.toBe(fontFile(ascii).bytes);
  });
});
