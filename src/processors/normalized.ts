import type { NormalizedDispute } from './types.js';

/** What every processor tells of a dispute. */
type KnownAttribute = 'id' | 'state' | 'reason' | 'kind';
type OptionalAttribute = Exclude<keyof NormalizedDispute, KnownAttribute>;

/**
 * What one processor tells of a dispute: the attributes every processor knows, and those of the rest it
 * reports. A key that is not an attribute (a misspelt one) does not compile.
 */
export type DisputeFacts = Pick<NormalizedDispute, KnownAttribute> &
  Partial<Pick<NormalizedDispute, OptionalAttribute>>;

/** Every optional attribute, unknown, in NormalizedDispute's order: each adapter's disputes list alike. */
const unknownAttributes = {
  chargedAt: null,
  disputedAt: null,
  dueBy: null,
  closedAt: null,
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
  compellingEvidenceProcessorStatus: null,
} as const satisfies Record<OptionalAttribute, null>;

const optionalAttributes = Object.keys(unknownAttributes) as OptionalAttribute[];

/** The dispute with every attribute its processor does not report (omitted or undefined) as null. */
export function normalizedDispute(facts: DisputeFacts): NormalizedDispute {
  const dispute: NormalizedDispute = {
    id: facts.id,
    state: facts.state,
    reason: facts.reason,
    kind: facts.kind,
    ...unknownAttributes,
  };
  // Each facts[attribute] has that attribute's type; TypeScript cannot pair the two over a union of keys.
  const given: Record<OptionalAttribute, unknown> = dispute;
  for (const attribute of optionalAttributes) given[attribute] = facts[attribute] ?? null;
  return dispute;
}
