import type { PastPayment } from '../../domain/evidence.js';
import { decimalToMinorUnits } from '../../domain/money.js';
import type { BraintreeClient, SearchedTransaction } from './client.js';

/**
 * Earlier payments with the disputed card, from Braintree's transaction search
 * (https://developer.paypal.com/braintree/docs/reference/request/transaction/search/): the disputed
 * transaction names its card's `unique-number-identifier` (the same for every payment with that card
 * number), which the search takes as `credit_card_unique_identifier`. The search answers ids first
 * (`advanced_search_ids`), then the transactions by pages of ids (`advanced_search`), as the SDKs page it.
 * Kept: sales that settled or are settling, with no dispute of their own, made before the disputed one.
 */

/** Successful sale statuses (Transaction statuses: settling and submitted funds are on their way). */
const successful = ['settled', 'settling', 'submitted_for_settlement'];
/**
 * The most transactions read for one dispute. Braintree does not document the order of search results,
 * so newest-first is sorted here, among at most this many of the card's payments.
 */
export const maxTransactionsRead = 200;

export async function findPastPayments(
  client: BraintreeClient,
  charge: string,
  limit: number,
): Promise<PastPayment[]> {
  const disputed = await client.findTransaction(charge);
  const card = disputed?.['credit-card']?.['unique-number-identifier'];
  if (!disputed || !card) return [];
  const search = {
    'credit-card-unique-identifier': { is: card },
    type: ['sale'],
    status: successful,
  };
  const { pageSize, ids } = await client.searchTransactionIds(search);
  const wanted = ids.filter((id) => id !== charge).slice(0, maxTransactionsRead);
  const found: SearchedTransaction[] = [];
  for (let at = 0; at < wanted.length; at += pageSize) {
    found.push(...(await client.searchTransactions({ ...search, ids: wanted.slice(at, at + pageSize) })));
  }
  const before = Date.parse(disputed['created-at'] ?? '') || Number.POSITIVE_INFINITY;
  return found
    .filter(
      (payment) =>
        payment.id !== charge &&
        (payment.type ?? 'sale') === 'sale' &&
        successful.includes(payment.status ?? '') &&
        (payment.disputes ?? []).length === 0 &&
        Date.parse(payment['created-at']) < before,
    )
    .sort((a, b) => Date.parse(b['created-at']) - Date.parse(a['created-at']))
    .flatMap((payment) => pastPaymentOf(payment))
    .slice(0, limit);
}

function pastPaymentOf(payment: SearchedTransaction): PastPayment[] {
  const amount = decimalToMinorUnits(payment.amount, payment['currency-iso-code']);
  if (amount === undefined) return [];
  const customer = payment.customer?.id;
  const address = shippingAddress(payment.shipping);
  return [
    {
      id: payment.id,
      amount,
      currency: payment['currency-iso-code'].toLowerCase(),
      charged_at: Math.floor(Date.parse(payment['created-at']) / 1000),
      ...(customer ? { user_id: customer } : {}),
      ...(address ? { shipping_address: address } : {}),
    },
  ];
}

const addressParts = [
  'street-address',
  'extended-address',
  'locality',
  'region',
  'postal-code',
  'country-name',
];

function shippingAddress(shipping: Record<string, unknown> | null | undefined): string | null {
  if (!shipping) return null;
  const parts = addressParts
    .map((part) => shipping[part])
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '');
  return parts.length ? parts.join(', ') : null;
}
