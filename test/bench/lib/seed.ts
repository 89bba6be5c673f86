import type { Db } from '../../../src/db/client.js';
import { disputes, templates } from '../../../src/db/schema/index.js';
import type { DisputeRecord } from '../../../src/domain/disputes.js';
import { sampleDisputeValues, sampleNetwork } from '../../../src/domain/sample-disputes.js';
import type { TemplateField } from '../../../src/domain/templates.js';
import { type SeededRandom, seededRandom } from '../../../src/processors/mock/random.js';
import { sampleCharge } from '../../../src/processors/mock/world.js';

/**
 * Bench data: disputes shaped like the mock processor's test disputes (src/features/disputes/test-mode.ts), some
 * with a template and evidence, spread over the last 120 days. A seeded generator keeps runs comparable.
 */

const { reasons } = sampleDisputeValues;
/** Weighted towards the states a live account mostly holds. */
const states = [
  'needs_response',
  'needs_response',
  'needs_response',
  'submitted',
  'under_review',
  'won',
  'lost',
  'warning_needs_response',
  'queued',
] as const;
const day = 86_400_000;

export const benchTemplates: { id: string; name: string; fields: TemplateField[] }[] = [
  {
    id: 'tpl_fraud',
    name: 'Fraudulent purchase',
    fields: [
      { key: 'customer_name', type: 'text', required: true, description: null },
      { key: 'customer_email', type: 'email', required: true, description: null },
      { key: 'shipping_tracking', type: 'text', required: true, description: 'Carrier tracking number' },
      { key: 'ip_location', type: 'text', required: false, description: null },
    ],
  },
  {
    id: 'tpl_not_received',
    name: 'Product not received',
    fields: [
      { key: 'shipping_carrier', type: 'text', required: true, description: null },
      { key: 'shipping_date', type: 'date', required: true, description: null },
      { key: 'delivery_proof_url', type: 'url', required: false, description: null },
    ],
  },
  {
    id: 'tpl_subscription',
    name: 'Subscription cancelled',
    fields: [
      { key: 'cancellation_policy', type: 'text', required: true, description: null },
      { key: 'last_login', type: 'date', required: false, description: null },
    ],
  },
];

/** One dispute, every column the serializer reads filled in as the mirror would. */
export function benchDispute(
  random: SeededRandom,
  index: number,
  now: number,
): DisputeRecord & { orgId: string } {
  const charge = sampleCharge(random);
  const { customerName: name, customerEmail: email, amount } = charge;
  const createdAt = new Date(now - 120 * day + index * ((120 * day) / 10_000) + random.int(0, 1000));
  const state = random.pick(states);
  const template = random.next() < 0.3 ? random.pick(benchTemplates).id : null;
  const withEvidence = template !== null || random.next() < 0.2;
  const submitted = state === 'submitted' || state === 'under_review' || state === 'won' || state === 'lost';
  const dispute: Omit<DisputeRecord, 'network' | 'networkReasonCode' | 'processorStatus'> & {
    orgId: string;
  } = {
    orgId: '',
    livemode: false,
    id: `dp_${random.token(24)}`,
    state,
    reason: random.pick(reasons),
    kind: 'chargeback',
    source: 'mock',
    processor: null,
    account: random.next() < 0.5 ? 'default' : null,
    chargedAt: new Date(createdAt.getTime() - random.int(20, 60) * day),
    disputedAt: new Date(createdAt.getTime() - random.int(1, 5) * day),
    dueBy: new Date(createdAt.getTime() + random.int(7, 21) * day),
    submittedAt: submitted ? new Date(createdAt.getTime() + random.int(1, 6) * day) : null,
    closedAt: state === 'won' || state === 'lost' ? new Date(createdAt.getTime() + 40 * day) : null,
    submittedCount: submitted ? 1 : 0,
    template,
    fields: withEvidence
      ? {
          customer_name: name,
          customer_email: email,
          shipping_carrier: 'UPS',
          shipping_tracking: `1Z${random.token(16).toUpperCase()}`,
          notes: 'Customer confirmed receipt by email; signature on file.',
        }
      : {},
    products: withEvidence
      ? [
          {
            name: 'Widget Pro',
            description: 'Anodised aluminium widget, 2-pack',
            sku: `W-${random.int(1000, 9999)}`,
            quantity: random.int(1, 4),
            amount,
            url: 'https://shop.example.com/widget-pro',
            shipping_carrier: 'UPS',
            shipping_tracking_number: `1Z${random.token(16).toUpperCase()}`,
          },
        ]
      : [],
    correspondence: [],
    pastPayments: [],
    evidenceFiles: [],
    ...charge,
    resolution: null,
    alert: null,
    compellingEvidenceProcessorStatus: null,
    accountId: null,
    referenceUrl: withEvidence ? 'https://crm.example.com/tickets/4821' : null,
    createdAt,
    updatedAt: createdAt,
  };
  // From the amount, not drawn: the seeded data stays what it was.
  return { ...dispute, ...sampleNetwork(dispute.reason, amount), processorStatus: null };
}

/** Inserts the templates and `count` test-mode disputes for `orgId` in a few multi-row INSERTs; returns the ids. */
export async function seedDisputes(db: Db, orgId: string, count: number): Promise<string[]> {
  const random = seededRandom(42);
  const now = Date.now();
  await db
    .insert(templates)
    .values(benchTemplates.map((template) => ({ ...template, orgId, livemode: false, reasons: null })));
  const rows = Array.from({ length: count }, (_, index) => ({ ...benchDispute(random, index, now), orgId }));
  // About 40 parameters a row: 1,000 rows stay well under PostgreSQL's 65,535 bind parameters.
  const chunk = 1_000;
  for (let start = 0; start < rows.length; start += chunk) {
    await db.insert(disputes).values(rows.slice(start, start + chunk));
  }
  return rows.map((row) => row.id);
}
