import { CsvError, parse } from 'csv-parse/sync';
import { decimalToMinorUnits } from '../domain/money.js';
import { ReportError } from './types.js';

/**
 * Reading the dispute report files merchants download from a processor's portal (`dispute import`), for
 * the adapters of processors without a list call: rows by column name with the line each came from, so
 * that a row that cannot be read is named by its line; and decimal amounts as exact minor units.
 */

export interface ReportRow {
  /** The file's line the row ends on (1 is the header). */
  line: number;
  /** A column's value, trimmed; empty when the column is absent or blank. */
  get(column: string): string;
  /** The error refusing the file for `problem` in this row, named by its line. */
  fail(problem: string): ReportError;
  /** The amount in one column, in the currency another column names, as minor units (minorUnits). */
  amount(amountColumn: string, currencyColumn: string): { amount: number; currency: string };
}

/** The rows under the header line; a file without one of `required` columns is refused whole. */
export function readReportRows(csv: string, required: readonly string[]): ReportRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(csv, { bom: true, info: true, skip_empty_lines: true }) as unknown as typeof records;
  } catch (error) {
    if (error instanceof CsvError) throw new ReportError(`line ${error.lines ?? '?'}: ${error.message}`);
    throw error;
  }
  const [header, ...body] = records;
  if (!header) throw new ReportError('line 1: the file is empty');
  const positions = new Map(header.record.map((name, at) => [name.trim().toLowerCase(), at]));
  const missing = required.filter((column) => !positions.has(column.toLowerCase()));
  if (missing.length > 0) {
    throw new ReportError(
      `line 1: the header has no ${missing.map((name) => `"${name}"`).join(', ')} column`,
    );
  }
  return body.map(({ record, info }) => {
    const get = (column: string) => {
      const at = positions.get(column.toLowerCase());
      return at === undefined ? '' : (record[at] ?? '').trim();
    };
    const fail = (problem: string) => new ReportError(`line ${info.lines}: ${problem}`);
    return {
      line: info.lines,
      get,
      fail,
      amount(amountColumn: string, currencyColumn: string) {
        const text = get(amountColumn);
        const currency = get(currencyColumn);
        const amount = minorUnits(text, currency);
        if (amount === null) throw fail(`"${text} ${currency}" is not an amount`);
        return { amount, currency };
      },
    };
  });
}

/**
 * A decimal amount in major units (`12.50`, `1000`, `-3.125`, `+7.`) as minor units of the currency,
 * exactly (domain/money.ts): `12.50 EUR` → 1250, `1000 JPY` → 1000, `3.125 KWD` → 3125. Reports book
 * disputes as debits or credits, so the sign is dropped. Null when it is not such a number, has more
 * decimals than the currency, or the currency is not a three-letter code.
 */
export function minorUnits(decimal: string, currency: string): number | null {
  const match = /^[-+]?(\d+)(?:\.(\d*))?$/.exec(decimal.trim());
  if (!match || !/^[A-Za-z]{3}$/.test(currency)) return null;
  const [, whole = '', fraction = ''] = match;
  return decimalToMinorUnits(fraction === '' ? whole : `${whole}.${fraction}`, currency) ?? null;
}
