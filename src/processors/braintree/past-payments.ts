import type { PastPayment } from '../../domain/evidence.js';
import { decimalToMinorUnits } from '../../domain/money.js';
import { choosePastPayments, lookbackStart } from '../../domain/past-payment-choice.js';
import type { BraintreeClient, SearchedTransaction } from './client.js';

/**
 * Earlier payments with the disputed card, from Braintree's transaction search
 * (https://developer.paypal.com/braintree/docs/reference/request/transaction/search/): the disputed
 * transaction names its card's `unique-number-identifier` (the same for every payment with that card
 * number), which the search takes as `credit_card_unique_identifier`, with `created_at` from 365 days
 * before the disputed one. The search answers ids first (`advanced_search_ids`), then the transactions by
 * pages of ids (`advanced_search`), as the SDKs page it. Kept: sales that settled or are settling, with no
 * dispute and no refund of their own, made in the 365 days before the disputed one; for a Visa fraud
 * dispute those in Visa CE 3.0's window first (domain/past-payment-choice.ts).
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
  compellingEvidence = false,
): Promise<PastPayment[]> {
  const disputed = await client.findTransaction(charge);
  const card = disputed?.['credit-card']?.['unique-number-identifier'];
  const chargedAt = new Date(Date.parse(disputed?.['created-at'] ?? ''));
  if (!disputed || !card || Number.isNaN(chargedAt.getTime())) return [];
  const search = {
    'credit-card-unique-identifier': { is: card },
    type: ['sale'],
    status: successful,
    'created-at': { min: lookbackStart(chargedAt).toISOString(), max: chargedAt.toISOString() },
  };
  const { pageSize, ids } = await client.searchTransactionIds(search);
  const wanted = ids.filter((id) => id !== charge).slice(0, maxTransactionsRead);
  const found: SearchedTransaction[] = [];
  for (let at = 0; at < wanted.length; at += pageSize) {
    found.push(...(await client.searchTransactions({ ...search, ids: wanted.slice(at, at + pageSize) })));
  }
  const kept = found.flatMap((payment) => {
    const clean =
      payment.id !== charge &&
      (payment.type ?? 'sale') === 'sale' &&
      successful.includes(payment.status ?? '') &&
      (payment.disputes ?? []).length === 0 &&
      (payment['refund-ids'] ?? []).length === 0;
    const at = new Date(Date.parse(payment['created-at']));
    return clean ? pastPaymentOf(payment).map((past) => ({ payment: past, at })) : [];
  });
  return choosePastPayments(kept, chargedAt, limit, compellingEvidence);
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
