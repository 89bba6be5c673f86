import type { Network } from '../domain/networks.js';

/**
 * Card networks as processors spell them (Stripe `amex`, Braintree `American Express`, Adyen `mc`, Vantiv
 * `AX`), read into this service's names (domain/networks.ts). Each processor's spellings are a table in
 * its own mapping.ts; this module only reads a name through one. A spelling no table knows (a local
 * scheme such as Cartes Bancaires, a wallet, a word a processor adds later) is null, never an error: the
 * dispute is still mirrored, without a network.
 */

export type NetworkSpellings = Readonly<Record<string, Network>>;

/** Case, spaces and punctuation aside: `American Express`, `american_express` and `AMERICAN-EXPRESS` alike. */
const compact = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A reader of names through `spellings`. With `variants`, a name that is a known spelling followed by
 * more (Adyen's payment method variants: `visadankort`, `mccredit`, `amex_applepay`) is that spelling's
 * network, the longest spelling winning.
 */
export function networkReader(
  spellings: NetworkSpellings,
  options: { variants?: boolean } = {},
): (name: string | null | undefined) => Network | null {
  const table = new Map(Object.entries(spellings).map(([name, network]) => [compact(name), network]));
  const prefixes = [...table.keys()].sort((a, b) => b.length - a.length);
  return (name) => {
    const key = compact(name ?? '');
    if (key === '') return null;
    const exact = table.get(key);
    if (exact || !options.variants) return exact ?? null;
    const prefix = prefixes.find((spelling) => key.startsWith(spelling));
    return prefix === undefined ? null : (table.get(prefix) ?? null);
  };
}

/** A reported code or word as kept: trimmed, and null when the processor sent nothing (or only spaces). */
export function reported(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  return text === '' ? null : text;
}
