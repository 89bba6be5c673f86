import { describe, expect, it } from 'vitest';
import { drawEvidence } from '../../src/documents/engine/layout.js';
import {
  type DocumentSize,
  documentSizeProblem,
  measureDocument,
  measureTemplate,
} from '../../src/domain/document-size.js';
import {
  buildEvidenceDocument,
  documentText,
  type EvidenceDocumentInput,
  evidenceDictionary,
} from '../../src/domain/evidence-document.js';
import { scanPlaceholders } from '../../src/domain/template-body.js';
import { bareDispute, fullSubmission, generatedAt, template } from '../helpers/evidence-documents.js';

/** The characters of the document as built: what the measure must never fall below. */
const builtCharacters = (input: EvidenceDocumentInput) => documentText(buildEvidenceDocument(input)).length;

const withBody = (body: string, fields: Record<string, string> = {}): EvidenceDocumentInput => ({
  dispute: bareDispute({ template: 'tpl_pnr', fields }),
  template: template(body),
  generatedAt,
});

const defaults = { characters: 200_000, pages: 60 };

describe('measureDocument', () => {
  it('counts exactly what a document without a template body holds', () => {
    const input = { dispute: bareDispute(), template: null, generatedAt };
    expect(measureDocument(input)).toEqual({ characters: builtCharacters(input), pages: 1 });
  });

  it.each([
    ['a plain body', withBody('To the reviewing bank,\n\nThe order was delivered.')],
    ['placeholders', withBody('Order {{order_id}} for {{ customer_name }}.', { order_id: 'A-1' })],
    ['unknown and empty placeholders', withBody('{{nothing}} and {{}} and {{ }}.')],
    ['a value with line breaks', withBody('Note: {{note}}', { note: 'one\n\ntwo\nthree' })],
    ['sections placed twice', withBody('{{products}}\nText\n{{products}}\n{{correspondence}}')],
    ['blank lines and trailing spaces', withBody('\n\n  \nA  \n\n\nB\t\n\n')],
    ['a body of only a section', withBody('{{past_payments}}')],
    ['the full submission', fullSubmission()],
  ])('is at least the characters of the built document: %s', (_, input) => {
    const size = measureDocument(input);
    expect(size.characters).toBeGreaterThanOrEqual(builtCharacters(input));
    // The evidence dictionary's uncategorized_text is the same expansion, so it is counted too.
    const text = String(evidenceDictionary(input).uncategorized_text ?? '');
    expect(size.characters).toBeGreaterThanOrEqual(text.length);
  });

  it('estimates a long body at no fewer pages than its lines fill', () => {
    // The renderer fits about 54 lines of text to a page (600 one-letter lines made 11 pages), so 400
    // lines that each fit the width make at least 8.
    const body = Array.from({ length: 400 }, () => 'x'.repeat(80)).join('\n');
    expect(measureDocument(withBody(body)).pages).toBeGreaterThanOrEqual(8);
  });

  it.each([
    // What the renderer made of them (the Typst layout, November 2026): the estimate is at least that,
    // and not wildly more.
    ['the full submission', fullSubmission(10), 3],
    ['a full submission of 100 items', fullSubmission(100), 17],
    [
      'a line of 9,000 wide letters, three times',
      withBody('{{note}}\n'.repeat(3), { note: 'W'.repeat(9000) }),
      13,
    ],
  ])('estimates %s at no fewer pages than rendered', (_, input, rendered) => {
    const { pages } = measureDocument(input);
    expect(pages).toBeGreaterThanOrEqual(rendered);
    expect(pages).toBeLessThanOrEqual(rendered * 1.5);
  });

  // Counts read off the PDFs Typst renders (pdfinfo): every way it breaks a line, and glyphs far wider
  // than a letter. Estimated higher, never lower.
  it.each([
    ['line separators', withBody('{{note}}', { note: 'x\u2028'.repeat(2000) }), 73],
    ['next-line characters', withBody('{{note}}', { note: 'x\u0085'.repeat(2000) }), 73],
    ['carriage returns', withBody('{{note}}', { note: 'x\r'.repeat(2000) }), 73],
    ['paragraph separators', withBody('{{note}}', { note: 'x\u2029'.repeat(2000) }), 73],
    ['three-em dashes', withBody('{{note}}', { note: '\u2e3b'.repeat(3000) }), 8],
    ['Arabic phrase ligatures', withBody('{{note}}', { note: '\ufdfd '.repeat(1500) }), 4],
  ])('estimates a body of %s at no fewer pages than rendered', (_, input, rendered) => {
    expect(measureDocument(input).pages).toBeGreaterThanOrEqual(rendered);
  });

  // The document engine, which draws these (documents/engine/): its pages are counted, not read off a
  // PDF; the estimate holds for it as for Typst.
  it.each([
    ['the full submission', fullSubmission(10)],
    ['a full submission of 100 items', fullSubmission(100)],
    [
      'a line of 9,000 wide letters, three times',
      withBody('{{note}}\n'.repeat(3), { note: 'W'.repeat(9000) }),
    ],
    ['line separators', withBody('{{note}}', { note: 'x\u2028'.repeat(2000) })],
    ['carriage returns', withBody('{{note}}', { note: 'x\r'.repeat(2000) })],
    ['three-em dashes', withBody('{{note}}', { note: '\u2e3b'.repeat(3000) })],
    ['600 one-letter lines', withBody('{{note}}', { note: 'a\n'.repeat(600) })],
    // Rows just short of a third or a quarter of a page, kept whole: pages end well before they are full.
    [
      '170 fields of 15 lines',
      withBody(
        '',
        Object.fromEntries(Array.from({ length: 170 }, (_, i) => [`f${i}`, `${'v\n'.repeat(14)}v`])),
      ),
    ],
    [
      '95 messages with 20-line subjects and 12-line bodies',
      {
        dispute: bareDispute({
          correspondence: Array.from({ length: 95 }, () => ({
            from: 'a@b.c',
            to: 'c@d.e',
            subject: `${'s\n'.repeat(19)}s`,
            body: `${'b\n'.repeat(11)}b`,
          })),
        }),
        template: null,
        generatedAt,
      },
    ],
    // Letters far wider than the average of their script.
    ['a line of 9,000 Ԫ, three times', withBody('{{note}}\n'.repeat(3), { note: 'Ԫ'.repeat(9000) })],
    ['a line of 9,000 @, three times', withBody('{{note}}\n'.repeat(3), { note: '@'.repeat(9000) })],
  ])('estimates %s at no fewer pages than the document engine draws', (_, input) => {
    const drawn = drawEvidence(buildEvidenceDocument(input), []).pages.length;
    const { pages } = measureDocument(input);
    expect(pages).toBeGreaterThanOrEqual(drawn);
    expect(pages).toBeLessThanOrEqual(Math.ceil(drawn * 1.6));
  });

  it('measures the hostile case (20,000 placeholders of a 10,000-character field), and it is refused', () => {
    const input = withBody('{{note}}'.repeat(20_000), { note: 'n'.repeat(10_000) });
    // Counted, never built: the expansion alone is 200 million characters (building it took 480 ms and
    // 300 MB on the main thread).
    const size = measureDocument(input);
    expect(size.characters).toBeGreaterThan(200_000_000);
    expect(documentSizeProblem(size, defaults)?.message).toBe(
      `The response document would be ${size.characters.toLocaleString('en-US')} characters, over the limit of 200,000 (DOCUMENT_MAX_CHARACTERS).`,
    );
  });

  it('is an upper bound on generated documents', () => {
    // A seeded generator: the same cases every run.
    let seed = 15;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const pieces = [
      '{{a}}',
      '{{ b }}',
      '{{c}}',
      '{{amount}}',
      '{{products}}',
      ' text ',
      '\n',
      '\n\n',
      '  ',
      '\t',
    ];
    const values = ['', 'x', 'two words', 'line\nbreak', 'para\n\ngraph', '  padded  ', 'ł'.repeat(120)];
    for (let run = 0; run < 300; run += 1) {
      const body = Array.from({ length: Math.floor(random() * 40) }, () => pick(pieces)).join('');
      const lines = pick(['', '{{correspondence}}\n', '{{past_payments}}\n']);
      const input: EvidenceDocumentInput = {
        dispute: bareDispute({
          template: 'tpl_pnr',
          amount: 4999,
          currency: 'usd',
          fields: { a: pick(values), b: pick(values), c: pick(values) },
          products: random() < 0.5 ? [] : [{ name: pick(values) || 'p', quantity: 1, amount: 100 }],
        }),
        template: template(`${lines}${body}`, [], pick(['', 'Name', null])),
        generatedAt,
      };
      expect(measureDocument(input).characters, JSON.stringify(body)).toBeGreaterThanOrEqual(
        builtCharacters(input),
      );
    }
  });
});

describe('scanPlaceholders', () => {
  it('finds what the placeholder pattern of the contract matches, on generated brace soup', () => {
    // docs/api.md, "Templates and response documents": `{{key}}`, no braces inside, spaces trimmed.
    const pattern = /\{\{([^{}]*)\}\}/g;
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = ['{', '{', '}', '}', 'a', ' ', '\n'];
    for (let run = 0; run < 500; run += 1) {
      const text = Array.from(
        { length: Math.floor(random() * 30) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      const scanned: string[] = [];
      scanPlaceholders(text, (key, start, end) => scanned.push(`${start}:${end}:${key}`));
      const matched = [...text.matchAll(pattern)].map(
        (match) => `${match.index}:${match.index + match[0].length}:${(match[1] ?? '').trim()}`,
      );
      expect(scanned, JSON.stringify(text)).toEqual(matched);
    }
  });
});

describe('measureTemplate', () => {
  it('counts the body with every placeholder empty, under its heading', () => {
    const alone = measureTemplate(template('Order {{order_id}}.'));
    // 'Order .' and its line break; the heading 'Product not received' underlined, and separators.
    expect(alone.characters).toBe(8 + 2 * 20 + 3 + 4);
    expect(alone.pages).toBe(1);
  });

  it('is no more than any document with the template', () => {
    const input = fullSubmission();
    expect(measureTemplate(input.template ?? template(null)).characters).toBeLessThanOrEqual(
      measureDocument(input).characters,
    );
  });

  it('is nothing for a template without a body', () => {
    expect(measureTemplate(template(null))).toEqual({ characters: 0, pages: 1 });
  });
});

describe('documentSizeProblem', () => {
  const limits = { characters: 1000, pages: 3 };
  it.each<[DocumentSize, string | null]>([
    [{ characters: 1000, pages: 3 }, null],
    [
      { characters: 412_345, pages: 2 },
      'The response document would be 412,345 characters, over the limit of 1,000 (DOCUMENT_MAX_CHARACTERS).',
    ],
    [
      { characters: 900, pages: 4 },
      'The response document would be about 4 pages, over the limit of 3 (DOCUMENT_MAX_PAGES).',
    ],
  ])('%o: %s', (size, message) => {
    const problem = documentSizeProblem(size, limits);
    expect(problem?.message ?? null).toBe(message);
    if (problem) expect([problem.type, problem.status]).toEqual(['invalid_request', 400]);
  });

  it('names whose document it is', () => {
    expect(
      documentSizeProblem(
        { characters: 2000, pages: 1 },
        limits,
        "Template 'big' alone makes a response document of",
      )?.message,
    ).toBe(
      "Template 'big' alone makes a response document of 2,000 characters, over the limit of 1,000 (DOCUMENT_MAX_CHARACTERS).",
    );
  });
});
