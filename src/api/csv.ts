/**
 * CSV answers (RFC 4180): lines end in CRLF, and a cell holding a comma, a quote or a line break is quoted,
 * its quotes doubled. A CSV is opened in spreadsheets, which read a cell starting with `=`, `+`, `-` or `@`
 * (or a tab or carriage return before one) as a formula: text cells that start so get a leading apostrophe,
 * which spreadsheets show as text (OWASP, "CSV Injection"). Merchants choose some of the text (template
 * ids); numbers are ours and written as they are.
 */

export type CsvCell = string | number | null;

const formulaStart = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

function cellText(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return String(cell);
  const text = formulaStart.test(cell) ? `'${cell}` : cell;
  return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows, the header first, as CSV text ending in a line break. */
export function csvText(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => `${row.map(cellText).join(',')}\r\n`).join('');
}
