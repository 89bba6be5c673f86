import { describe, expect, it } from 'vitest';
import type { DrawOp, TextOp } from '../../src/documents/engine/drawing.js';
import { drawable, fontFace } from '../../src/documents/engine/fonts.js';
import { drawEvidence } from '../../src/documents/engine/layout.js';
import { overhang, wrapText } from '../../src/documents/engine/text-lines.js';
import { contentWidth, documentGeometry as g } from '../../src/domain/document-geometry.js';
import { buildEvidenceDocument } from '../../src/domain/evidence-document.js';
import { bareDispute, fullSubmission, generatedAt } from '../helpers/evidence-documents.js';

const regular = fontFace('regular');
const texts = (ops: DrawOp[]) => ops.filter((op): op is TextOp => op.kind === 'text');

describe('wrapText', () => {
  const size = 10;
  const width = regular.width('The parcel was', size);

  it.each([
    ['fills a line with whole words', 'The parcel was handed over', ['The parcel was', 'handed over']],
    ['keeps a line that fits as it is', 'The parcel', ['The parcel']],
    [
      'breaks at every kind of line break',
      'a\nb\r\nc\rd\u0085e\u2028f\u2029g',
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    ],
    ['keeps an empty line', 'a\n\nb', ['a', '', 'b']],
    ['leaves control characters out and shows a tab as a space', 'a\u0000b\u0007c\td\u009f', ['abc d']],
    ['keeps the spaces between words as written', 'a  b', ['a  b']],
    ['drops the spaces where a line breaks', 'The parcel was   handed', ['The parcel was', 'handed']],
    [
      'keeps the indentation a paragraph and each written line start with',
      '  The parcel was handed\n    over',
      ['  The parcel', 'was handed', '    over'],
    ],
    [
      'drops an indentation the first word would not fit after',
      `${' '.repeat(60)}The parcel`,
      ['The parcel'],
    ],
  ])('%s', (_, text, lines) => {
    expect(wrapText(text, regular, size, width)).toEqual(lines);
  });

  it('breaks a word wider than the line between its characters, losing none', () => {
    const word = 'X'.repeat(100);
    const lines = wrapText(`id ${word} end`, regular, size, width);
    expect(lines.join('')).toBe(`id${word} end`.replace(' end', ' end'));
    for (const line of lines) expect(regular.width(line, size)).toBeLessThanOrEqual(width);
    expect(lines.length).toBeGreaterThan(3);
  });

  it('keeps a word a little wider than the line whole, overhanging into the gutter', () => {
    const word = 'support@shop.example.com';
    const narrow = regular.width(word, size) - overhang + 0.5;
    expect(wrapText(`to ${word}`, regular, size, narrow)).toEqual(['to', word]);
  });

  it('breaks a word much wider than the line after its last punctuation that fits', () => {
    const url = 'https://shop.example.com/policies/refunds/and/returns';
    const lines = wrapText(url, regular, size, regular.width('https://shop.example.com/polic', size));
    expect(lines[0]).toBe('https://shop.example.com/');
    expect(lines.join('')).toBe(url);
  });

  it('breaks a word after punctuation and then again, never wider than the line and its overhang', () => {
    const narrow = 40;
    const lines = wrapText(`a/${'⸻'.repeat(2)}WWWW`, regular, size, narrow);
    for (const line of lines) expect(regular.width(line, size)).toBeLessThanOrEqual(narrow + overhang);
  });

  it('breaks a word wider than the line between whole characters, astral ones included', () => {
    const word = '𝐀'.repeat(60);
    const lines = wrapText(word, regular, size, width);
    expect(lines.join('')).toBe(word);
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const line of lines) expect(line).not.toMatch(loneSurrogate);
  });
});

describe('drawable', () => {
  it.each([
    ['Latin, Latin Extended, Greek and Cyrillic', 'Łukasz Zieliński, Ωμέγα, Привет, Ærøskøbing', true],
    ['punctuation and symbols', '€ £ ¥ — “quoted” ‘x’ … № ©', true],
    ['line breaks and control characters, which the layout handles', 'a\n\t\u0000\u2028b', true],
    ['Chinese', '中文', false],
    ['Hebrew', 'שלום', false],
    ['emoji', 'ok 😀', false],
    ['a combining mark', 'e\u0301', false],
    ['a bidirectional control', 'a\u202eb', false],
    ['a lone surrogate', 'a\ud800b', false],
  ])('%s: %s', (_, text, expected) => {
    expect(drawable(text)).toBe(expected);
  });
});

describe('drawEvidence', () => {
  const model = buildEvidenceDocument(fullSubmission(10));
  const drawing = drawEvidence(model, []);
  const bottom = g.pageHeight - g.margins.bottom;

  it('draws the reference document on numbered pages, text within the page', () => {
    expect(drawing.pages.length).toBeGreaterThanOrEqual(2);
    drawing.pages.forEach((ops, index) => {
      const lines = texts(ops).map((op) => op.text);
      expect(lines).toContain(`Page ${index + 1} of ${drawing.pages.length}`);
      expect(lines).toContain(`Dispute ${model.summary[0]?.value}`);
      for (const op of texts(ops)) {
        expect(op.x).toBeGreaterThanOrEqual(g.margins.left);
        const right = op.x + fontFace(op.font).width(op.text.trimEnd(), op.size);
        expect(right).toBeLessThanOrEqual(g.margins.left + contentWidth + overhang);
      }
      const body = texts(ops).filter(
        (op) => !op.text.startsWith('Page ') && !op.text.startsWith('Dispute du_'),
      );
      for (const op of body) expect(op.y).toBeLessThanOrEqual(bottom);
    });
    expect(drawing.title).toBe(`Dispute response: ${model.pageLabel}`);
    expect(drawing.created).toBe(generatedAt);
  });

  it("sets the template's paragraphs apart by more than its lines", () => {
    const body = 'To the reviewing bank,\nfirst paragraph.\n\nSecond paragraph.';
    const template = { id: 't', name: 'Letter', body, fields: [] };
    const [ops = []] = drawEvidence(
      buildEvidenceDocument({ dispute: bareDispute(), template, generatedAt }),
      [],
    ).pages;
    const y = (text: string) => texts(ops).find((op) => op.text === text)?.y ?? Number.NaN;
    const line = y('first paragraph.') - y('To the reviewing bank,');
    expect(line).toBeGreaterThan(0);
    // About half a line more between paragraphs than between lines (with a 7 pt gap it was 1.8 pt more).
    expect(y('Second paragraph.') - y('first paragraph.') - line).toBeGreaterThan(line / 2 - 0.5);
  });

  it('draws a table header again above every page a table continues on', () => {
    const body = `${'The parcel was handed to the customer at the door. '.repeat(400)}Last words.`;
    const message = { to: 'a@example.com', from: 'b@example.com', subject: 'Long one', body };
    const long = drawEvidence(
      buildEvidenceDocument({
        dispute: bareDispute({ correspondence: [message] }),
        template: null,
        generatedAt,
      }),
      [],
    );
    expect(long.pages.length).toBeGreaterThan(2);
    for (const ops of long.pages.slice(1)) {
      const lines = texts(ops).map((op) => op.text);
      expect(lines.slice(0, 5)).toEqual(['Correspondence (1)', 'SENT', 'FROM', 'TO', 'SUBJECT']);
      // The header sits in the top margin, above the text.
      expect(texts(ops)[4]?.y).toBeLessThan(g.margins.top);
    }
    const words = long.pages.flatMap((ops) => texts(ops).map((op) => op.text)).join(' ');
    expect(words.match(/\bparcel\b/g)).toHaveLength(400);
  });

  it('keeps a short row whole, moving it to the next page rather than splitting it', () => {
    // A subject of twelve lines: a row of cells, kept whole (a message's body flows).
    const message = (n: number) => ({
      to: 'a@example.com',
      from: `b${n}@example.com`,
      subject: 'Short line.\n'.repeat(12),
      body: 'Received.',
    });
    const many = drawEvidence(
      buildEvidenceDocument({
        dispute: bareDispute({ correspondence: Array.from({ length: 12 }, (_, n) => message(n)) }),
        template: null,
        generatedAt,
      }),
      [],
    );
    // Every message's twelve lines are on one page.
    const perPage = many.pages.map((ops) => texts(ops).filter((op) => op.text === 'Short line.').length);
    for (const count of perPage) expect(count % 12).toBe(0);
    expect(perPage.reduce((a, b) => a + b)).toBe(144);
  });

  it('numbers an appended file’s pages after the document’s own', () => {
    const input = fullSubmission(10);
    const withFile = buildEvidenceDocument({
      ...input,
      files: [
        {
          id: 'file_messages',
          category: 'uncategorized',
          description: null,
          filename: 'messages.pdf',
          type: 'pdf',
          pages: 3,
          pixels: null,
          slot: null,
        },
      ],
    });
    const drawn = drawEvidence(withFile, []);
    const own = drawn.pages.length;
    const lines = drawn.pages.flatMap((ops) => texts(ops).map((op) => op.text)).join(' ');
    expect(lines).toContain(`Pages ${own + 1} to ${own + 3} of this file, after this document`);
  });

  it('writes a long dispute id whole in the footer, wrapping into the margin', () => {
    const id = `dp_${'x'.repeat(180)}`;
    const drawn = drawEvidence(
      buildEvidenceDocument({ dispute: bareDispute({ id }), template: null, generatedAt }),
      [],
    );
    const footer = texts(drawn.pages[0] ?? []).filter((op) => op.y > bottom);
    expect(
      footer
        .map((op) => op.text)
        .join('')
        .replace('Page 1 of 1', ''),
    ).toBe(`Dispute${id}`);
    for (const op of footer) expect(op.y).toBeLessThan(g.pageHeight);
  });

  it('keeps an image under a caption of many lines within its page', () => {
    // Thirty lines: the caption flows (over a third of a page) and ends halfway down a page.
    const caption = 'line\n'.repeat(30);
    const model = buildEvidenceDocument({ dispute: bareDispute(), template: null, generatedAt });
    const image = { path: '/files/0.png', file: 'file_1', width: 400, height: 550 };
    model.blocks.push({ kind: 'image', title: 'Receipt', caption, image });
    const drawn = drawEvidence(model, []);
    const images = drawn.pages.flat().filter((op) => op.kind === 'image');
    expect(images).toHaveLength(1);
    const [op] = images;
    expect((op?.y ?? 0) + (op?.height ?? 0)).toBeLessThanOrEqual(bottom + 0.01);
    expect((op?.width ?? 0) / (op?.height ?? 1)).toBeCloseTo(400 / 550);
  });

  it('draws an image under a caption of 1,000 characters on one page with its heading and caption', () => {
    // The model leaves the image the room its caption does not take (domain/evidence-attachments.ts):
    // drawn whole, not scaled down by the layout nor parted from its caption.
    const description = 'A long description of the receipt, as a merchant may write one. '
      .repeat(16)
      .slice(0, 1000);
    const model = withTallImage(description);
    const block = model.blocks.find((candidate) => candidate.kind === 'image');
    const drawn = drawEvidence(model, []);
    const ops = drawn.pages.find((page) => page.some((op) => op.kind === 'image')) ?? [];
    const image = ops.find((op) => op.kind === 'image');
    const texts = ops.filter((op): op is TextOp => op.kind === 'text').map((op) => op.text);
    expect(texts).toContain('Receipt');
    expect(texts.some((text) => text.endsWith('tall.png'))).toBe(true);
    expect(texts.some((text) => text.startsWith('A long description'))).toBe(true);
    expect(image?.height).toBeCloseTo(block?.kind === 'image' ? block.image.height : 0);
    expect((image?.y ?? 0) + (image?.height ?? 0)).toBeLessThanOrEqual(bottom + 0.01);
  });

  it('draws an image under a caption of hundreds of lines at half a page at least, after the caption', () => {
    const description = 'a line\n'.repeat(120);
    const model = withTallImage(description);
    const block = model.blocks.find((candidate) => candidate.kind === 'image');
    expect(block?.kind === 'image' && block.image.height).toBeGreaterThanOrEqual(
      (bottom - g.margins.top) / 2,
    );
    const image = drawEvidence(model, [])
      .pages.flat()
      .find((op) => op.kind === 'image');
    expect((image?.y ?? 0) + (image?.height ?? 0)).toBeLessThanOrEqual(bottom + 0.01);
  });

  it('keeps an item’s detail flowing from under its cells, not moved whole to the next page', () => {
    // Details just short of a third of a page: moved whole with their cells, two would go on a page.
    const body = 'b\n'.repeat(20);
    const message = { to: 'a@example.com', from: 'b@example.com', subject: 'Long', body };
    const drawn = drawEvidence(
      buildEvidenceDocument({
        dispute: bareDispute({ correspondence: Array.from({ length: 10 }, () => message) }),
        template: null,
        generatedAt,
      }),
      [],
    );
    expect(drawn.pages.length).toBeLessThanOrEqual(4);
    const lines = drawn.pages.flatMap((ops) => texts(ops).filter((op) => op.text === 'b'));
    expect(lines).toHaveLength(200);
  });
});

/** A dispute's document with one tall receipt image (600 × 1,000 pixels) under `description`. */
function withTallImage(description: string) {
  return buildEvidenceDocument({
    dispute: bareDispute(),
    template: null,
    generatedAt,
    files: [
      {
        id: 'file_tall',
        category: 'receipt',
        description,
        filename: 'tall.png',
        type: 'png',
        pages: null,
        pixels: { width: 600, height: 1000 },
        slot: null,
      },
    ],
  });
}
