import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/documents/pdf.js';
import { buildEvidenceDocument } from '../../src/domain/evidence-document.js';
import { bareDispute, generatedAt, template } from '../helpers/evidence-documents.js';
import { drawnBy, pageLines } from '../helpers/pdf-text.js';
import { ensureDebianPackage } from '../helpers/services.js';

/**
 * Merchant and cardholder text is data to the renderer (docs/architecture.md, "Response documents"):
 * whatever it holds, the PDF shows it as written. Read back with pdf.js, and right-to-left text with
 * poppler's pdftotext, which gives it in its logical order, as it was sent (pdf.js gives the order on
 * the page).
 */

const pdftotext = '/usr/bin/pdftotext';

/** Each value as an evidence field, in the template's text and as a product's name: three layouts. */
function render(value: string): Buffer {
  const dispute = bareDispute({
    fields: { note: value },
    products: [{ name: value, sku: 'SKU-1', quantity: 1, amount: 100 }],
  });
  return renderPdf(buildEvidenceDocument({ dispute, template: template('{{note}}'), generatedAt }));
}

const rightToLeft = /[\p{sc=Hebrew}\p{sc=Arabic}]/u;

async function extracted(pdf: Buffer, value: string): Promise<string> {
  if (!rightToLeft.test(value)) return (await pageLines(pdf)).join('\n');
  const text = execFileSync(pdftotext, ['-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
  // pdftotext marks a right-to-left run with embedding controls: they are its own, not the text's.
  return text.replace(/[\u202a-\u202e]/g, '');
}

/**
 * The extractors' normalisation, on both sides: whitespace is left out. Where a line breaks, and whether
 * a gap between two pieces of text is a space, is each extractor's guess (pdf.js sees one between a
 * Chinese character and a Latin one; pdftotext none between two narrow signs; a line of Chinese breaks
 * between any two characters); every other character must be there, in the order sent.
 */
const squashed = (text: string) => text.replace(/[\s\u0085]+/g, '');

/** What the page shows of a value: control characters have no glyph and are left out. */
const shown = (value: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point.
  squashed(value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g, ''));

/** How often `value` occurs in the document's text. */
async function occurrences(pdf: Buffer, value: string): Promise<number> {
  return squashed(await extracted(pdf, value)).split(shown(value)).length - 1;
}

beforeAll(() => ensureDebianPackage('poppler-utils', pdftotext));

describe('text in the response document', () => {
  // Which engine draws each (documents/pdf.ts): the document engine whatever its characters mean to
  // Typst or to PDF, Typst what needs shaping.
  const hostile: [string, string, 'engine' | 'typst'][] = [
    ['Typst markup', '#import "@preview/cetz:0.3.0": * #set page(fill: red) *bold* _em_ = Heading', 'engine'],
    ['code and math', '#{ panic("x") } #eval("1 + 1") $x^2$ `raw` ```rust fn main() {}```', 'engine'],
    [
      'escapes and labels',
      '\\ \\u{41} <label> @ref // comment /* block */ ~ -- ... \'quote\' "double"',
      'engine',
    ],
    ['unbalanced brackets', '] ) } [ ( { ]] [[ ((( }}} {{ #[ #( #{', 'engine'],
    ['PDF syntax', '(a) \\(b\\) <48656c6c6f> [1 0 R] %comment /Name endstream endobj BT ET Tj', 'engine'],
    ['a very long word', `SKU-${'X'.repeat(300)}-END`, 'engine'],
    ['right-to-left text', 'שלום עולם and مرحبا بالعالم in one line', 'typst'],
    ['emoji', 'Thanks 🎉 👍 ✅ ❤️ for 📦', 'typst'],
    ['control characters', 'before\u0001\u0007\u001b\u007f\u0085after\tand a tab', 'engine'],
    ['Greek and Cyrillic', 'Ελληνικά Русский Ærøskøbing Łódź № € …', 'engine'],
    ['Greek, Cyrillic and CJK', 'Ελληνικά Русский 中文字符 日本語のテキスト 한국어 텍스트', 'typst'],
    ['a combining mark', 'Zoe\u0308 and Ame\u0301lie', 'typst'],
    ['a placeholder-looking value', '{{customer_name}} {{ products }}', 'engine'],
  ];

  it.each(hostile)(
    'shows %s as written, in a field, the template text and a table cell',
    async (_, value, engine) => {
      const pdf = render(value);
      expect(await drawnBy(pdf)).toBe(engine);
      expect(await occurrences(pdf, value)).toBe(3);
    },
  );

  const pieces = [
    '#',
    '[',
    ']',
    '(',
    ')',
    '{',
    '}',
    '$',
    '\\',
    '*',
    '_',
    '`',
    '<',
    '>',
    '@',
    '=',
    '/',
    '"',
    "'",
    '%',
    'import',
    'set',
    'show',
    'let',
    'endstream',
    'a',
    'Zoë',
    'Ж',
    'λ',
    '1',
    '.',
    ',',
    '\t',
    '\u0007',
  ];
  const values = (from: string[]) => {
    const words = fc
      .array(fc.constantFrom(...from), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join(''));
    return fc.array(words, { minLength: 1, maxLength: 12 }).map((list) => list.join(' '));
  };

  it('shows any text as written, the document engine drawing it (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(values(pieces), async (value) => {
        const pdf = render(value);
        expect(await drawnBy(pdf)).toBe('engine');
        expect(await occurrences(pdf, value)).toBe(3);
      }),
      { numRuns: 40, seed: 15 },
    );
  });

  it('shows any text as written, Typst drawing what needs shaping (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(values([...pieces, '中', '한', '🎉']), async (value) => {
        expect(await occurrences(render(value), value)).toBe(3);
      }),
      { numRuns: 40, seed: 15 },
    );
  });
});
