/**
 * Amounts in minor units (cents, yen, fils): how many decimals a currency has, and a decimal in major
 * units (`"12.50"`) as an integer of minor units, exactly, never through a floating-point number.
 */

/**
 * ISO 4217 minor units of every currency that has other than 2, which is what processors count amounts in.
 * A table rather than ICU: ICU follows cash rounding for some (HUF, IDR, PKR have no coins below a unit)
 * and varies with its version.
 */
const exponents: Record<string, number> = {
  ...Object.fromEntries(
    [
      'BIF',
      'CLP',
      'DJF',
      'GNF',
      'ISK',
      'JPY',
      'KMF',
      'KRW',
      'PYG',
      'RWF',
      'UGX',
      'UYI',
      'VND',
      'VUV',
      'XAF',
      'XOF',
      'XPF',
    ].map((code) => [code, 0]),
  ),
  ...Object.fromEntries(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((code) => [code, 3])),
  CLF: 4,
  UYW: 4,
};

/**
 * Minor-unit digits of a currency (ISO 4217: JPY 0, USD 2, KWD 3), whatever the code's case; 2 for every
 * other code, known or not. Amounts are shown with the same digits (evidence-format.ts).
 */
export function minorUnitExponent(currency: string): number {
  const code = currency.toUpperCase();
  return Object.hasOwn(exponents, code) ? (exponents[code] as number) : 2;
}

/** Why a decimal is not an exact amount in a currency. */
export type AmountProblem =
  /** Not an optional `-`, digits, and a point with digits after it (`"12.50"`, `"-3"`, `".5"`). */
  | 'not_decimal'
  /** A decimal past the currency's own that is not zero (`"12.345"` USD, `"1500.5"` JPY). */
  | 'too_many_decimals'
  /** More minor units than a number counts exactly (beyond Number.MAX_SAFE_INTEGER). */
  | 'too_large';

/**
 * A decimal in major units as minor units of the currency: `"12.50"` USD is 1250, `"1500"` JPY 1500,
 * `"3.125"` KWD 3125, `"-1.00"` USD -100. Surrounding white space is ignored, and so are decimals past the
 * currency's own when they are zeros (`"1500.00"` JPY); any other is a problem, never rounded.
 */
export function readMinorUnits(
  decimal: string,
  currency: string,
): { amount: number } | { problem: AmountProblem } {
  const match = /^(-?)(\d*)(?:\.(\d+))?$/.exec(decimal.trim());
  const [, sign, whole = '', fraction = ''] = match ?? [];
  if (!match || (whole === '' && fraction === '')) return { problem: 'not_decimal' };
  const exponent = minorUnitExponent(currency);
  if (/[^0]/.test(fraction.slice(exponent))) return { problem: 'too_many_decimals' };
  const amount = Number(`${whole}${fraction.slice(0, exponent).padEnd(exponent, '0')}`);
  if (!Number.isSafeInteger(amount)) return { problem: 'too_large' };
  return { amount: sign === '-' && amount !== 0 ? -amount : amount };
}

/** readMinorUnits' amount; undefined for a decimal that is not an exact amount in the currency. */
export function decimalToMinorUnits(decimal: string, currency: string): number | undefined {
  const read = readMinorUnits(decimal, currency);
  return 'amount' in read ? read.amount : undefined;
}
