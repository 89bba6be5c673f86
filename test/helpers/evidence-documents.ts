import type { DisputeRecord } from '../../src/domain/disputes.js';
import type { EvidencePackage } from '../../src/domain/evidence.js';
import type { EvidenceDocumentInput, EvidenceTemplate } from '../../src/domain/evidence-document.js';
import type { FieldType } from '../../src/domain/templates.js';

/** Factories for the evidence document's tests and bench: a dispute, a template, and a full submission. */

/** Evidence as submitted for a dispute that has none: no template, no fields, no items. */
export const noEvidence: EvidencePackage = {
  template: null,
  fields: {},
  products: [],
  correspondence: [],
  pastPayments: [],
  referenceUrl: null,
};

/** A dispute with only what every dispute has; everything optional is absent. */
export function bareDispute(overrides: Partial<DisputeRecord> = {}): DisputeRecord {
  return {
    id: 'dp_bare',
    livemode: false,
    state: 'needs_response',
    reason: 'general',
    kind: 'chargeback',
    source: 'api',
    processor: null,
    account: null,
    chargedAt: null,
    disputedAt: null,
    dueBy: null,
    submittedAt: null,
    closedAt: null,
    submittedCount: 0,
    template: null,
    fields: {},
    products: [],
    correspondence: [],
    pastPayments: [],
    evidenceFiles: [],
    charge: null,
    isChargeRefundable: null,
    amount: null,
    currency: null,
    fee: null,
    reversalAmount: null,
    reversalTotal: null,
    reversalCurrency: null,
    customer: null,
    customerName: null,
    customerEmail: null,
    customerPurchaseIp: null,
    addressZip: null,
    addressLine1Check: null,
    addressZipCheck: null,
    cvcCheck: null,
    statementDescriptor: null,
    network: null,
    networkReasonCode: null,
    processorStatus: null,
    resolution: null,
    alert: null,
    compellingEvidenceProcessorStatus: null,
    accountId: null,
    referenceUrl: null,
    createdAt: new Date('2026-10-02T00:00:05Z'),
    updatedAt: new Date('2026-10-05T00:00:05Z'),
    ...overrides,
  };
}

export function template(
  body: string | null,
  fields: [key: string, type: FieldType][] = [],
  name: string | null = 'Product not received',
): EvidenceTemplate {
  return {
    id: 'tpl_pnr',
    name,
    body,
    fields: fields.map(([key, type]) => ({ key, type, required: false, description: null })),
  };
}

export const generatedAt = new Date('2026-10-06T09:30:00Z');

/** The body of the full submission's template: every section placed but past payments, which is appended. */
export const fullBody = `To the reviewing bank,

{{ customer_name }} placed order {{order_id}} on {{charged_at}} for {{order_total}} and disputes the charge {{charge}} of {{amount}} as "product not received".

The order was shipped under tracking number {{tracking_number}} and delivered on {{delivered_on}}. The items of the order:
{{products}}

Our correspondence with the customer shows that they were told of the delivery:
{{correspondence}}

Our refund policy ({{refund_policy_url}}) was shown at checkout.
Sincerely,
The Shop team`;

/**
 * A dispute as a merchant submits it: `items` products, messages and past payments (10 by default, the
 * most past payments a dispute takes), a template with filled fields, and a customer whose name is not
 * Latin-1.
 */
export function fullSubmission(items = 10): EvidenceDocumentInput {
  const dispute = bareDispute({
    id: 'du_1PqR7sTuVwXyZ',
    livemode: true,
    reason: 'product_not_received',
    source: 'stripe',
    processor: 'stripe',
    account: 'default',
    chargedAt: new Date('2026-09-14T16:42:00Z'),
    disputedAt: new Date('2026-10-02T00:00:00Z'),
    dueBy: new Date('2026-10-23T23:59:59Z'),
    template: 'tpl_pnr',
    fields: {
      order_id: 'ORD-48213',
      delivered_on: '2026-09-18',
      refund_policy_url: 'https://shop.example.com/policies/refunds',
      tracking_number: '1Z999AA10123456784',
      order_total: 12998,
    },
    products: Array.from({ length: items }, (_, i) => ({
      name: `Trail running shoe, model ${i + 1}`,
      sku: `SKU-TRS-${1000 + i}`,
      quantity: 1 + (i % 3),
      amount: 6499 + i * 100,
      ...(i % 3 === 0 && { description: `Trail shoe with a rock plate and a 6 mm drop; size EU ${40 + i}.` }),
      shipping_carrier: 'UPS',
      shipping_tracking_number: `1Z999AA1012345678${i}`,
    })),
    correspondence: Array.from({ length: items }, (_, i) => ({
      sent: 1_789_000_000 + i * 86_400,
      from: i % 2 ? 'support@shop.example.com' : 'lukasz.zielinski@example.pl',
      to: i % 2 ? 'lukasz.zielinski@example.pl' : 'support@shop.example.com',
      subject: `Re: order ORD-48213, message ${i + 1}`,
      body:
        i % 2
          ? 'Dzień dobry Łukasz, your parcel was delivered on 18 September and signed for by "Zieliński".'
          : 'Hello, I have not received my order yet. Could you check where it is? Łukasz',
      ...(i === 3 && { caption: 'Carrier delivery confirmation' }),
    })),
    pastPayments: Array.from({ length: items }, (_, i) => ({
      id: `ch_3PastPayment${i}`,
      amount: 4999 + i,
      currency: 'eur',
      charged_at: `2026-0${1 + (i % 8)}-1${i % 10}T10:15:00Z`,
      device_id: `dev_${(i * 7919).toString(16)}`,
      user_id: 'user_2231',
      ip_address: `203.0.113.${10 + i}`,
      item_description: 'Trail running socks, 3 pairs',
      shipping_address: 'ul. Marszałkowska 12/4, 00-590 Warszawa, Poland',
    })),
    charge: 'ch_3PqR7sTuVwXyZ0',
    isChargeRefundable: false,
    amount: 12998,
    currency: 'eur',
    fee: 1500,
    customer: 'cus_R2d2C3po',
    customerName: 'Łukasz Zieliński',
    customerEmail: 'lukasz.zielinski@example.pl',
    customerPurchaseIp: '203.0.113.10',
    addressZip: '00-590',
    addressLine1Check: 'pass',
    addressZipCheck: 'pass',
    cvcCheck: 'pass',
    statementDescriptor: 'SHOP.EXAMPLE',
    referenceUrl: 'https://shop.example.com/admin/orders/ORD-48213',
  });
  const fields: [string, FieldType][] = [
    ['order_id', 'text'],
    ['delivered_on', 'date'],
    ['order_total', 'amount'],
    ['customer_name', 'text'],
    ['tracking_number', 'text'],
    ['refund_policy_url', 'url'],
  ];
  return { dispute, template: template(fullBody, fields, 'Product not received: response'), generatedAt };
}
