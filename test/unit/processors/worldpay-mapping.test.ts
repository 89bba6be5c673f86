import { describe, expect, it } from 'vitest';
import {
  categoryReasons,
  cycleKinds,
  disputeFromRecord,
  eventStatuses,
  recordOfEvent,
  statusRules,
  type WorldpayRecord,
  worldpayStatuses,
} from '../../../src/processors/worldpay/mapping.js';

const at = new Date('2026-11-20T10:00:00Z');

function record(overrides: Partial<WorldpayRecord> = {}): WorldpayRecord {
  return {
    reference: 'order-1',
    status: 'CHARGED_BACK',
    kind: null,
    at,
    amount: 1250,
    currency: 'GBP',
    chargedAt: null,
    dueBy: new Date('2026-12-01T00:00:00Z'),
    reasonCode: null,
    reasonCategory: null,
    network: null,
    ...overrides,
  };
}

describe('worldpay statuses', () => {
  // [status, kind from the cycle (null: the source does not say), state, kind, whether it opens a dispute]
  const rows = [
    ['INFORMATION_REQUESTED', null, 'warning_needs_response', 'retrieval', true],
    ['INFORMATION_REQUESTED', 'chargeback', 'warning_needs_response', 'retrieval', true],
    ['INFORMATION_SUPPLIED', null, 'under_review', 'chargeback', false],
    ['INFORMATION_SUPPLIED', 'retrieval', 'warning_under_review', 'retrieval', false],
    ['INFORMATION_SUPPLIED', 'pre_arbitration', 'under_review', 'pre_arbitration', false],
    ['CHARGED_BACK', null, 'needs_response', 'chargeback', true],
    ['CHARGED_BACK', 'pre_arbitration', 'needs_response', 'pre_arbitration', true],
    ['CHARGEBACK_REVERSED', null, 'won', 'chargeback', false],
    ['CHARGEBACK_REVERSED', 'retrieval', 'warning_closed', 'retrieval', false],
    ['IN_PROGRESS', null, 'needs_response', 'chargeback', false],
    ['IN_PROGRESS', 'retrieval', 'warning_needs_response', 'retrieval', false],
    ['EXPIRED', null, 'lost', 'chargeback', false],
    ['EXPIRED', 'retrieval', 'warning_closed', 'retrieval', false],
    ['EXPIRED', 'pre_arbitration', 'lost', 'pre_arbitration', false],
  ] as const;

  it('every status has a row here', () => {
    expect(new Set(rows.map(([status]) => status))).toEqual(new Set(worldpayStatuses));
    expect(Object.keys(statusRules).sort()).toEqual([...worldpayStatuses].sort());
  });

  it.each(rows)('%s in a %s cycle is %s, a %s', (status, cycle, state, kind, opens) => {
    const dispute = disputeFromRecord(record({ status, kind: cycle }));
    expect(dispute.state).toBe(state);
    expect(dispute.kind).toBe(kind);
    expect(dispute.disputedAt).toEqual(opens ? at : null);
    const closed = ['won', 'lost', 'warning_closed'].includes(state);
    expect(dispute.closedAt).toEqual(closed ? at : null);
  });

  it('an expired dispute without a status date closed at its due date; a reversed one has no close date then', () => {
    expect(disputeFromRecord(record({ status: 'EXPIRED', at: null })).closedAt).toEqual(
      new Date('2026-12-01T00:00:00Z'),
    );
    expect(disputeFromRecord(record({ status: 'CHARGEBACK_REVERSED', at: null })).closedAt).toBeNull();
  });
});

describe('worldpay event types, cycles and reason categories', () => {
  it.each([
    ['informationRequested', 'INFORMATION_REQUESTED'],
    ['informationSupplied', 'INFORMATION_SUPPLIED'],
    ['chargedBack', 'CHARGED_BACK'],
    ['chargebackReversed', 'CHARGEBACK_REVERSED'],
  ])('event type %s is the status %s', (type, status) => {
    expect(eventStatuses[type]).toBe(status);
  });

  it('no other event type is a dispute', () => {
    expect(Object.keys(eventStatuses)).toHaveLength(4);
  });

  it.each([
    ['request for information', 'retrieval'],
    ['rfi', 'retrieval'],
    ['first cycle', 'chargeback'],
    ['first chargeback', 'chargeback'],
    ['second cycle', 'pre_arbitration'],
    ['second chargeback', 'pre_arbitration'],
  ])('the cycle "%s" is a %s', (cycle, kind) => {
    expect(cycleKinds[cycle]).toBe(kind);
  });

  it.each([
    ['fraud', 'fraudulent'],
    ['authorisation', 'general'],
    ['authorization', 'general'],
    ['processing errors', 'general'],
    ['consumer disputes', 'general'],
  ])('the reason category "%s" is %s', (category, reason) => {
    expect(categoryReasons[category]).toBe(reason);
  });
});

describe('worldpay reasons', () => {
  it.each([
    [null, null, 'chargeback', 'general'],
    ['10.4', null, 'chargeback', 'fraudulent'],
    ['4855', 'Fraud', 'chargeback', 'product_not_received'],
    ['99', 'FRAUD', 'chargeback', 'fraudulent'],
    ['F29', null, 'pre_arbitration', 'fraudulent'],
    ['10.4', 'Fraud', 'retrieval', 'retrieved'],
  ] as const)('code %s, category %s, in a %s: %s', (reasonCode, reasonCategory, kind, reason) => {
    expect(
      disputeFromRecord(record({ reasonCode, reasonCategory, kind, status: 'IN_PROGRESS' })).reason,
    ).toBe(reason);
  });
});

describe('worldpay events', () => {
  const event = (eventTimestamp: string, date?: string) => ({
    eventId: 'e1',
    eventTimestamp,
    eventDetails: {
      classification: 'chargeback',
      transactionReference: 'Memory265-13/08/1876',
      type: 'informationRequested',
      ...(date && { date }),
      amount: { value: 100, currencyCode: 'EUR' },
    },
  });

  it('reads a zoneless timestamp as UTC and the payment date as its day', () => {
    expect(recordOfEvent(event('2018-06-13T14:18:13.407', '2017-11-03'))).toEqual({
      reference: 'Memory265-13/08/1876',
      status: 'INFORMATION_REQUESTED',
      kind: null,
      at: new Date('2018-06-13T14:18:13.407Z'),
      amount: 100,
      currency: 'EUR',
      chargedAt: new Date('2017-11-03T00:00:00Z'),
      dueBy: null,
      reasonCode: null,
      reasonCategory: null,
      network: null,
    });
  });

  it.each([
    ['2018-06-13T14:18:13Z', '2018-06-13T14:18:13Z'],
    ['2018-06-13T14:18:13-0500', '2018-06-13T19:18:13Z'],
  ])('keeps the zone of %s', (timestamp, utc) => {
    expect(recordOfEvent(event(timestamp))?.at).toEqual(new Date(utc));
  });

  it('has no record for a date it cannot read', () => {
    expect(recordOfEvent(event('soon'))).toBeNull();
    expect(recordOfEvent(event('2018-06-13T14:18:13', 'later'))).toBeNull();
  });
});
