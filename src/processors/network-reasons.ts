import { codeKey, type Network } from '../domain/networks.js';
import type { Reason } from '../domain/vocabulary.js';

/**
 * Card networks' reason codes in this service's reasons, for processors that pass the network's code
 * through (Adyen, Checkout.com, Vantiv, Worldpay reports, Amex reports). One table per network, as data.
 * Sources: Stripe's Visa-to-category table (docs.stripe.com/disputes/categories), Mastercard's chargeback
 * guide reason codes, and the Amex codes of docs/architecture.md, "Amex" (Antom and Braintree's mappings).
 * A code none of them knows is `general`: the dispute is still mirrored and answerable.
 */

const visa: Record<string, Reason> = {
  '10.1': 'fraudulent',
  '10.2': 'fraudulent',
  '10.3': 'fraudulent',
  '10.4': 'fraudulent',
  '10.5': 'fraudulent',
  '11.1': 'general',
  '11.2': 'general',
  '11.3': 'general',
  '12.1': 'general',
  '12.2': 'general',
  '12.3': 'general',
  '12.4': 'incorrect_account_details',
  '12.5': 'transaction_amount_differs',
  '12.6.1': 'duplicate',
  '12.6.2': 'duplicate',
  '12.7': 'general',
  '13.1': 'product_not_received',
  '13.2': 'subscription_canceled',
  '13.3': 'product_unacceptable',
  '13.4': 'product_unacceptable',
  '13.5': 'product_unacceptable',
  '13.6': 'credit_not_processed',
  '13.7': 'credit_not_processed',
  '13.8': 'general',
  '13.9': 'product_not_received',
  '28': 'general',
  '30': 'general',
  '33': 'fraudulent',
  '34': 'general',
};

const mastercard: Record<string, Reason> = {
  '4807': 'general',
  '4808': 'general',
  '4812': 'incorrect_account_details',
  '4831': 'transaction_amount_differs',
  '4834': 'duplicate',
  '4837': 'fraudulent',
  '4840': 'fraudulent',
  '4841': 'subscription_canceled',
  '4842': 'general',
  '4849': 'fraudulent',
  '4853': 'product_unacceptable',
  '4854': 'general',
  '4855': 'product_not_received',
  '4859': 'product_not_received',
  '4860': 'credit_not_processed',
  '4863': 'unrecognized',
  '4870': 'fraudulent',
  '4871': 'fraudulent',
};

const amex: Record<string, Reason> = {
  F10: 'fraudulent',
  F14: 'fraudulent',
  F24: 'fraudulent',
  F29: 'fraudulent',
  F30: 'fraudulent',
  F31: 'fraudulent',
  FR2: 'fraudulent',
  FR4: 'fraudulent',
  FR6: 'fraudulent',
  A01: 'general',
  A02: 'general',
  A08: 'general',
  C02: 'credit_not_processed',
  C04: 'goods_services_returned_or_refused',
  C05: 'goods_services_cancelled',
  C08: 'product_not_received',
  C14: 'duplicate',
  C18: 'goods_services_cancelled',
  C28: 'subscription_canceled',
  C31: 'product_unacceptable',
  C32: 'product_unacceptable',
  P01: 'incorrect_account_details',
  P22: 'incorrect_account_details',
  P05: 'transaction_amount_differs',
  P08: 'duplicate',
  P03: 'general',
  P04: 'general',
  P07: 'general',
  P23: 'general',
  M01: 'general',
  R03: 'general',
  R13: 'general',
  // Legacy numeric codes, as Braintree maps them.
  '127': 'unrecognized',
  '177': 'unrecognized',
  '155': 'product_not_received',
  '4554': 'product_not_received',
  '175': 'credit_not_processed',
  '684': 'credit_not_processed',
  '4513': 'credit_not_processed',
  '173': 'duplicate',
  '193': 'fraudulent',
  '4540': 'fraudulent',
};

/** The networks whose codes this module knows; the others' codes are read by their form alone. */
const networkReasonTables: Partial<Record<Network, Record<string, Reason>>> = { visa, mastercard, amex };

/**
 * The reason for a network's code. With the network (as the adapter read it, domain/networks.ts), its
 * table; without it, or for a network without a table here, the code's own form tells (Visa `10.4`,
 * Mastercard `4837`, Amex `F29`); `general` when nothing knows it.
 */
export function networkReason(code: string | null | undefined, network?: Network | null): Reason {
  const key = codeKey(code ?? '');
  if (key === '') return 'general';
  const table = network ? networkReasonTables[network] : undefined;
  if (table) return table[key] ?? 'general';
  return visa[key] ?? mastercard[key] ?? amex[key] ?? 'general';
}
