/** The vocabularies of the dispute object (docs/api.md, "The dispute object"); states live with their table in states.ts. */
export const reasons = [
  'general',
  'fraudulent',
  'duplicate',
  'subscription_canceled',
  'product_unacceptable',
  'product_not_received',
  'unrecognized',
  'credit_not_processed',
  'incorrect_account_details',
  'insufficient_funds',
  'bank_cannot_process',
  'debit_not_authorized',
  'goods_services_returned_or_refused',
  'goods_services_cancelled',
  'transaction_amount_differs',
  'retrieved',
  'customer_initiated',
] as const;
export type Reason = (typeof reasons)[number];

export const processors = [
  'stripe',
  'braintree',
  'paypal',
  'adyen',
  'checkout',
  'worldpay',
  'vantiv',
  'amex',
] as const;
export type Processor = (typeof processors)[number];

export const kinds = ['chargeback', 'pre_arbitration', 'retrieval'] as const;
export type Kind = (typeof kinds)[number];

export const checks = ['pass', 'fail', 'unavailable', 'unchecked'] as const;
export type Check = (typeof checks)[number];

/**
 * The pre-dispute programs that resolve a dispute (its `resolution`): `rdr`, Visa's Rapid Dispute Resolution
 * as a processor reports it, or `alert_refund`, this service's refund of its alert.
 */
export const disputeResolutions = ['rdr', 'alert_refund'] as const;
export type DisputeResolution = (typeof disputeResolutions)[number];
/** What a processor can report; `alert_refund` is this service's alone. */
export type ProcessorResolution = Extract<DisputeResolution, 'rdr'>;
