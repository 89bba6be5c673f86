import { CsvError, parse } from 'csv-parse/sync';
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
  return body.map(({ record, info }) => ({
    line: info.lines,
    get(column: string) {
      const at = positions.get(column.toLowerCase());
      return at === undefined ? '' : (record[at] ?? '').trim();
    },
  }));
}

const exponents = new Map<string, number>();

/**
 * Minor-unit digits of a currency from ICU, as this service shows amounts (domain/evidence-format.ts):
 * JPY 0, EUR 2, KWD 3; a well-formed code ICU does not know has 2.
 */
function exponentOf(currency: string): number {
  const code = currency.toUpperCase();
  let exponent = exponents.get(code);
  if (exponent === undefined) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
    exponent = format.resolvedOptions().maximumFractionDigits ?? 2;
    exponents.set(code, exponent);
  }
  return exponent;
}

/**
 * A decimal amount in major units (`12.50`, `1000`, `-3.125`) as minor units of the currency, exactly
 * (no floating point): `12.50 EUR` → 1250, `1000 JPY` → 1000, `3.125 KWD` → 3125. Reports book disputes
 * as debits or credits, so the sign is dropped. Null when it is not such a number, has more decimals than
 * the currency, or the currency is not a three-letter code.
 */
export function minorUnits(decimal: string, currency: string): number | null {
  const match = /^[-+]?(\d+)(?:\.(\d*))?$/.exec(decimal.trim());
  const exponent = /^[A-Za-z]{3}$/.test(currency) ? exponentOf(currency) : null;
  if (!match || exponent === null) return null;
  const [, whole = '', fraction = ''] = match;
  if (/[^0]/.test(fraction.slice(exponent))) return null;
  const value = Number(whole + fraction.slice(0, exponent).padEnd(exponent, '0'));
  return Number.isSafeInteger(value) ? value : null;
}
