/**
 * The card networks a dispute can come from (docs/api.md, "The dispute object", `network`). A processor's
 * own spelling is mapped to one of these in its adapter's mapping; anything else is reported as null.
 */
export const networks = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'unionpay', 'diners'] as const;

export type Network = (typeof networks)[number];

export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (networks as readonly string[]).includes(value);
}
