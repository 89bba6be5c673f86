import { describe, expect, it } from 'vitest';
import {
  amountOf,
  CellProblem,
  caseTypes,
  dateOf,
  disputeFromRow,
  fieldColumns,
  reportColumns,
  statusStates,
} from '../../../src/processors/amex/mapping.js';

const row = (cells: Record<string, string> = {}) =>
  disputeFromRow({
    caseNumber: 'R1',
    type: 'Chargeback',
    status: 'Response Needed',
    reasonCode: 'C08',
    amount: 'USD 10.00',
    replyBy: '03/22/2026',
    received: '03/02/2026',
    ...cells,
  });

describe('Amex statuses', () => {
  const expected: Record<string, [chargeback: string, inquiry: string]> = {
    'Response Needed': ['needs_response', 'warning_needs_response'],
    Open: ['needs_response', 'warning_needs_response'],
    New: ['needs_response', 'warning_needs_response'],
    'Review in Progress': ['under_review', 'warning_under_review'],
    'In Review': ['under_review', 'warning_under_review'],
    Responded: ['under_review', 'warning_under_review'],
    Won: ['won', 'warning_closed'],
    Reversed: ['won', 'warning_closed'],
    'Chargeback Reversed': ['won', 'warning_closed'],
    Closed: ['lost', 'warning_closed'],
    Lost: ['lost', 'lost'],
    Upheld: ['lost', 'lost'],
    'Chargeback Upheld': ['lost', 'lost'],
    'No Reply': ['lost', 'lost'],
    Expired: ['lost', 'lost'],
    Refunded: ['charge_refunded', 'charge_refunded'],
  };

  it('the table holds these statuses and no other', () => {
    expect(Object.keys(statusStates).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))(
    'a chargeback and an inquiry in %s read %j',
    (status, [chargeback, inquiry]) => {
      expect(row({ status }).state).toBe(chargeback);
      expect(row({ status, type: 'Inquiry' }).state).toBe(inquiry);
    },
  );

  it('matches statuses whatever their case and spacing', () => {
    expect(row({ status: '  review IN   progress ' }).state).toBe('under_review');
  });

  it.each(Object.entries(expected))('a row in %s is closed exactly when its state is', (status) => {
    const dispute = row({ status });
    const closed = ['won', 'lost', 'warning_closed', 'charge_refunded'].includes(dispute.state);
    expect(dispute.closedAt).toEqual(closed ? new Date('2026-03-22T00:00:00.000Z') : null);
  });
});

describe('Amex case types', () => {
  const expected: Record<string, string> = {
    Chargeback: 'chargeback',
    'Upfront Chargeback': 'chargeback',
    Inquiry: 'retrieval',
    'Dispute Alert': 'retrieval',
  };

  it('the table holds these types and no other', () => {
    expect(Object.keys(caseTypes).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('a %s is a %s', (type, kind) => {
    expect(row({ type }).kind).toBe(kind);
  });
});

describe('Amex reason codes (docs/architecture.md, "Amex")', () => {
  it.each([
    ['F10', 'fraudulent'],
    ['F14', 'fraudulent'],
    ['F24', 'fraudulent'],
    ['F29', 'fraudulent'],
    ['F30', 'fraudulent'],
    ['F31', 'fraudulent'],
    ['FR2', 'fraudulent'],
    ['FR4', 'fraudulent'],
    ['FR6', 'fraudulent'],
    ['A01', 'general'],
    ['A02', 'general'],
    ['A08', 'general'],
    ['C02', 'credit_not_processed'],
    ['C04', 'goods_services_returned_or_refused'],
    ['C05', 'goods_services_cancelled'],
    ['C08', 'product_not_received'],
    ['C14', 'duplicate'],
    ['C18', 'goods_services_cancelled'],
    ['C28', 'subscription_canceled'],
    ['C31', 'product_unacceptable'],
    ['C32', 'product_unacceptable'],
    ['P01', 'incorrect_account_details'],
    ['P22', 'incorrect_account_details'],
    ['P05', 'transaction_amount_differs'],
    ['P08', 'duplicate'],
    ['P03', 'general'],
    ['P04', 'general'],
    ['P07', 'general'],
    ['P23', 'general'],
    ['M01', 'general'],
    ['R03', 'general'],
    ['R13', 'general'],
    ['127', 'unrecognized'],
    ['177', 'unrecognized'],
    ['155', 'product_not_received'],
    ['4554', 'product_not_received'],
    ['175', 'credit_not_processed'],
    ['684', 'credit_not_processed'],
    ['4513', 'credit_not_processed'],
    ['173', 'duplicate'],
    ['193', 'fraudulent'],
    ['4540', 'fraudulent'],
    ['c08', 'product_not_received'],
    ['Z99', 'general'],
    ['', 'general'],
  ])('code %j is %s', (reasonCode, reason) => {
    expect(row({ reasonCode }).reason).toBe(reason);
  });

  it('reads codes as Amex codes, not as the Visa code of the same form', () => {
    // 13.1 is Visa's "merchandise not received"; among Amex codes it is unknown.
    expect(row({ reasonCode: '13.1' }).reason).toBe('general');
  });
});

describe('report columns', () => {
  it('finds each field by any of its names, and leaves out fields the header lacks', () => {
    expect(
      fieldColumns(['Case Number', 'Case Type', 'STATUS', 'Disputes Amount', 'Respond By', 'Other']),
    ).toEqual({
      caseNumber: 0,
      type: 1,
      status: 2,
      amount: 3,
      replyBy: 4,
    });
  });

  it('every field has a first name, the one errors use', () => {
    for (const names of Object.values(reportColumns)) expect(names[0]).toEqual(expect.any(String));
  });
});

describe('cells', () => {
  it.each([
    ['USD 0.01', 1],
    ['USD 1,000,000.00', 100000000],
    ['BHD 10.5', 10500],
    ['CLP 12,000', 12000],
  ])('the amount %s is %i minor units', (cell, amount) => {
    expect(amountOf(cell, undefined).amount).toBe(amount);
  });

  it('names the field a bad cell belongs to', () => {
    const problem = (() => {
      try {
        dateOf('charged', '2026-13-01');
      } catch (error) {
        return error;
      }
    })();
    expect(problem).toBeInstanceOf(CellProblem);
    expect(problem).toMatchObject({
      field: 'charged',
      message: '"2026-13-01" is not a date (MM/DD/YYYY or YYYY-MM-DD)',
    });
  });

  it('reads US and ISO dates as the start of their day in UTC; an empty cell is none', () => {
    expect(dateOf('received', '3/2/2026')).toEqual(new Date('2026-03-02T00:00:00.000Z'));
    expect(dateOf('received', '2026-03-02')).toEqual(new Date('2026-03-02T00:00:00.000Z'));
    expect(dateOf('received', ' ')).toBeNull();
    expect(dateOf('received', undefined)).toBeNull();
  });
});
