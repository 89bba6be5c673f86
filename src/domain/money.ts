/**
 * Amounts in minor units (cents, yen, fils): how many decimals a currency has, and a decimal in major
 * units (`"12.50"`) as an integer of minor units, exactly, never through a floating-point number.
 */

const exponents = new Map<string, number>();

/**
 * Where ICU's digits (which follow cash rounding: HUF and IDR have no coins below a unit) differ from ISO
 * 4217's minor units, which is what processors count amounts in (Braintree, PayPal, reports).
 */
const iso4217: Record<string, number> = {
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

/**
 * Minor-unit digits of a currency (ISO 4217: JPY 0, USD 2, KWD 3, HUF 2), whatever the code's case: from
 * ICU under a fixed locale, corrected where ICU follows cash rounding instead; 2 for a code neither knows.
 * Amounts are shown with the same digits (evidence-format.ts), so what is stored reads back as the
 * processor wrote it.
 */
export function minorUnitExponent(currency: string): number {
  const code = currency.toUpperCase();
  let exponent = exponents.get(code);
  if (exponent === undefined) {
    try {
      const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
      exponent = iso4217[code] ?? format.resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      exponent = 2;
    }
    exponents.set(code, exponent);
  }
  return exponent;
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
