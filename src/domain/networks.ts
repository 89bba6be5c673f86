/**
 * The card networks a dispute can come from (docs/api.md, "The dispute object", `network`). A processor's
 * own spelling is mapped to one of these in its adapter's mapping; anything else is reported as null.
 */
export const networks = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'unionpay', 'diners'] as const;

export type Network = (typeof networks)[number];

export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (networks as readonly string[]).includes(value);
}

/**
 * A network's reason code as merchants write one (test disputes, disputes created through the API, rule
 * conditions, default templates): 1-20 characters of A-Z a-z 0-9 . - (Visa `12.6.1`, Mastercard `4837`,
 * Amex `F29`, Discover `UA02`). Mirrored codes are kept as the processor reports them, whatever they hold.
 */
export const networkReasonCodePattern = /^[A-Za-z0-9][A-Za-z0-9.-]{0,19}$/;
export const networkReasonCodeRule = 'must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -';

/** How codes are compared, wherever they are matched: case aside (`f29` is Amex's `F29`). */
export const codeKey = (code: string): string => code.trim().toUpperCase();
