import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CsvCell, csvText } from '../../src/api/csv.js';

/** CSV answers (src/api/csv.ts): RFC 4180 quoting, and no cell a spreadsheet would run as a formula. */

describe('csvText', () => {
  it('writes CRLF lines, quotes only what needs it, numbers as they are and null as empty', () => {
    expect(
      csvText([
        ['a', 'b', 'c', 'd'],
        ['plain', 'with, comma', 'say "hi"', null],
        ['two\nlines', 'cr\rhere', 0.5, 1200],
      ]),
    ).toBe('a,b,c,d\r\nplain,"with, comma","say ""hi""",\r\n"two\nlines","cr\rhere",0.5,1200\r\n');
  });

  it('makes a text cell that a spreadsheet would read as a formula text, with a leading apostrophe', () => {
    expect(csvText([['=1+1', '+1', '-tpl', '@SUM(A1)', '\t=1', '\r=1', "'quoted", 'a=b', '1-2']])).toBe(
      `'=1+1,'+1,'-tpl,'@SUM(A1),'\t=1,"'\r=1",'quoted,a=b,1-2\r\n`,
    );
    // A formula that needs quotes too: the apostrophe goes inside them.
    expect(csvText([['=HYPERLINK("http://x","y")']])).toBe(`"'=HYPERLINK(""http://x"",""y"")"\r\n`);
    // Negative numbers are numbers, not text: they are written as they are.
    expect(csvText([[-5]])).toBe('-5\r\n');
  });

  it('reads back, through a CSV parser, as the cells written (a formula-like one with its apostrophe)', () => {
    const formula = fc.constantFrom('=', '+', '-', '@', '\t', '\r');
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.tuple(formula, fc.string({ unit: 'binary' })).map(([start, rest]) => start + rest),
      // Few characters, so that quotes, separators and line breaks meet often.
      fc.string({ unit: fc.constantFrom(',', '"', '\r', '\n', "'", '=', '-', 'a', ' ') }),
    );
    const cell = fc.oneof(text, fc.integer(), fc.constant(null));
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        (rows) => {
          // Rows of equal width, as an answer's are.
          const width = Math.max(...rows.map((row) => row.length));
          const table: CsvCell[][] = rows.map((row) => [...row, ...Array(width - row.length).fill(null)]);
          const read = parse(csvText(table), {
            record_delimiter: '\r\n',
            relax_column_count: false,
          }) as string[][];
          expect(read).toEqual(
            table.map((row) =>
              row.map((value) => {
                if (value === null) return '';
                if (typeof value === 'number') return String(value);
                return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
              }),
            ),
          );
          const texts = read.flat().filter((_, at) => typeof table.flat()[at] === 'string');
          for (const text of texts) expect(text).not.toMatch(/^[=+\-@\t\r]/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
