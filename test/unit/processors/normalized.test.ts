import { describe, expect, it } from 'vitest';
import { normalizedDispute } from '../../../src/processors/normalized.js';

describe('a normalized dispute', () => {
  it('holds what the processor reports, and null for every attribute it leaves out or leaves undefined', () => {
    const dispute = normalizedDispute({
      id: 'dp_1',
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'chargeback',
      amount: 1250,
      currency: 'usd',
      customer: undefined,
    });
    expect(dispute).toStrictEqual({
      id: 'dp_1',
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'chargeback',
      chargedAt: null,
      disputedAt: null,
      dueBy: null,
      closedAt: null,
      charge: null,
      isChargeRefundable: null,
      amount: 1250,
      currency: 'usd',
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
    });
  });

  it('keeps a reported false and zero', () => {
    const dispute = normalizedDispute({
      id: 'dp_2',
      state: 'won',
      reason: 'general',
      kind: 'retrieval',
      isChargeRefundable: false,
      fee: 0,
    });
    expect([dispute.isChargeRefundable, dispute.fee]).toEqual([false, 0]);
  });
});
