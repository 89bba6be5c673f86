import { describe, expect, it } from 'vitest';
import { decimalToMinorUnits, minorUnitExponent, readMinorUnits } from '../../src/domain/money.js';

describe('minor-unit exponents', () => {
  it.each([
    ['USD', 2],
    ['usd', 2],
    ['JPY', 0],
    ['KWD', 3],
    ['BHD', 3],
    // ISO 4217, where ICU follows cash rounding instead.
    ['HUF', 2],
    ['huf', 2],
    ['IDR', 2],
    ['COP', 2],
    ['IQD', 3],
    ['ISK', 0],
    ['KRW', 0],
    ['PKR', 2],
    ['CLF', 4],
    // A code ICU does not know, or not a code at all: two decimals, as amounts are shown.
    ['ZZZ', 2],
    ['EURO', 2],
  ])('%s has %i', (currency, exponent) => {
    expect(minorUnitExponent(currency)).toBe(exponent);
  });
});

describe('decimals in minor units', () => {
  it.each([
    ['12.50', 'USD', 1250],
    ['.5', 'USD', 50],
    ['-1.00', 'USD', -100],
    ['-0.00', 'USD', 0],
    [' 9.99 ', 'USD', 999],
    ['1500.00', 'JPY', 1500],
    ['3.125', 'KWD', 3125],
    ['1250.50', 'HUF', 125050],
    ['12.345', 'IQD', 12345],
    ['90071992547409.91', 'USD', 9007199254740991],
  ])('%s %s is %i', (decimal, currency, minor) => {
    expect(decimalToMinorUnits(decimal, currency)).toBe(minor);
  });

  it.each([
    ['', 'USD', 'not_decimal'],
    ['-', 'USD', 'not_decimal'],
    ['12.', 'USD', 'not_decimal'],
    ['+1', 'USD', 'not_decimal'],
    ['1,000.00', 'USD', 'not_decimal'],
    ['1e3', 'USD', 'not_decimal'],
    ['12.345', 'USD', 'too_many_decimals'],
    ['1500.5', 'JPY', 'too_many_decimals'],
    ['12.3456', 'IQD', 'too_many_decimals'],
    ['90071992547409.92', 'USD', 'too_large'],
  ])('%s %s is refused: %s', (decimal, currency, problem) => {
    expect(readMinorUnits(decimal, currency)).toEqual({ problem });
    expect(decimalToMinorUnits(decimal, currency)).toBeUndefined();
  });
});
