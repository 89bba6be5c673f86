import { describe, expect, it } from 'vitest';
import { minorUnits, readReportRows } from '../../../src/processors/report-files.js';
import { ReportError } from '../../../src/processors/types.js';

describe('decimal amounts in minor units', () => {
  it.each([
    ['12.50', 'EUR', 1250],
    ['12.5', 'eur', 1250],
    ['12', 'USD', 1200],
    ['12.', 'USD', 1200],
    ['0.01', 'GBP', 1],
    ['1000', 'JPY', 1000],
    ['1000.00', 'JPY', 1000],
    ['3.125', 'KWD', 3125],
    ['3.1', 'BHD', 3100],
    ['-40.00', 'GBP', 4000],
    ['+7.77', 'USD', 777],
    ['  9.99 ', 'USD', 999],
    ['90071992547409.91', 'USD', 9007199254740991],
    // A code ICU does not know has two decimals, as the service shows such amounts.
    ['12.50', 'ZZZ', 1250],
  ])('%s %s is %i', (decimal, currency, minor) => {
    expect(minorUnits(decimal, currency)).toBe(minor);
  });

  it.each([
    ['12.505', 'EUR', 'more decimals than the currency has'],
    ['1000.5', 'JPY', 'a fraction of a yen'],
    ['1,000.00', 'USD', 'a thousands separator'],
    ['12,50', 'EUR', 'a decimal comma'],
    ['', 'EUR', 'nothing'],
    ['abc', 'EUR', 'no number'],
    ['12.50', 'EURO', 'a currency that is not a code'],
    ['90071992547409.92', 'USD', 'beyond a safe integer'],
  ])('%s %s is not read (%s)', (decimal, currency) => {
    expect(minorUnits(decimal, currency)).toBeNull();
  });
});

describe('report rows', () => {
  it('reads columns by name, case and spaces aside, with the line each row ends on', () => {
    const rows = readReportRows('\uFEFFId, Amount \n1,"2,50"\n\n2,"multi\nline"\n', ['id', 'amount']);
    expect(rows.map((row) => [row.line, row.get('ID'), row.get('amount'), row.get('missing')])).toEqual([
      [2, '1', '2,50', ''],
      [5, '2', 'multi\nline', ''],
    ]);
  });

  it('refuses a file that is empty, lacks a column, or is not CSV, naming the line', () => {
    expect(() => readReportRows('', ['Id'])).toThrow(new ReportError('line 1: the file is empty'));
    expect(() => readReportRows('Id\n1', ['Id', 'Amount'])).toThrow(
      new ReportError('line 1: the header has no "Amount" column'),
    );
    expect(() => readReportRows('Id,Amount\n1,2\n3,"4', ['Id'])).toThrow(ReportError);
    expect(() => readReportRows('Id,Amount\n1,2\n3,4,5', ['Id'])).toThrow(/^line 3: /);
  });
});
