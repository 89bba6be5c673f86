import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AmexAdapter } from '../../../src/processors/amex/adapter.js';
import { type NormalizedDispute, ReportError } from '../../../src/processors/types.js';
import { type AmexFake, csvOf, reportHeader, startAmexFake } from '../../fakes/amex.js';
import { adapterContract, contractAccount, contractSubmission } from '../../helpers/adapter-contract.js';
import { processorSpecs } from '../../helpers/processor-specs.js';

adapterContract(processorSpecs.amex);

const adapter = new AmexAdapter();

function refusal(csv: string): ReportError {
  try {
    adapter.readReport(csv);
  } catch (error) {
    expect(error).toBeInstanceOf(ReportError);
    return error as ReportError;
  }
  throw new Error('the report was read');
}

/** A report of one row, the header's cells set from `row` (by header name), the rest empty. */
function reportOf(row: Record<string, string>, header: readonly string[] = Object.keys(row)): string {
  return csvOf([header, header.map((name) => row[name] ?? '')]);
}

const chargeback = {
  'Case Number': 'R4100000001',
  Type: 'Chargeback',
  Status: 'Response Needed',
  'Reason Code': 'C08',
  Amount: 'USD 1,234.56',
};

describe('amex dispute reports', () => {
  let fake: AmexFake;
  beforeEach(async () => {
    fake = await startAmexFake();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('reads every field of a row of the Disputes tool report', () => {
    const dispute = fake.addDispute({
      caseNumber: 'R4100000777',
      type: 'Chargeback',
      status: 'Response Needed',
      reasonCode: 'F29',
      amount: 'USD 1,234.56',
      received: '03/02/2026',
      replyBy: '03/22/2026',
      transactionDate: '02/11/2026',
      chargeReference: 'ROC00000777',
    });

    const [read] = adapter.readReport(fake.report([dispute.caseNumber]));

    expect(read).toEqual({
      id: 'R4100000777',
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'chargeback',
      chargedAt: new Date('2026-02-11T00:00:00.000Z'),
      disputedAt: new Date('2026-03-02T00:00:00.000Z'),
      dueBy: new Date('2026-03-22T00:00:00.000Z'),
      closedAt: null,
      charge: 'ROC00000777',
      isChargeRefundable: null,
      amount: 123456,
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
      network: 'amex',
      networkReasonCode: 'F29',
      processorStatus: 'Response Needed',
      resolution: null,
      compellingEvidenceProcessorStatus: null,
    } satisfies NormalizedDispute);
  });

  it('reads an inquiry as a retrieval, and a closed one as a closed warning on its latest day', () => {
    const inquiry = fake.addDispute({
      type: 'Inquiry',
      status: 'Closed',
      received: '03/02/2026',
      replyBy: '03/22/2026',
      transactionDate: '02/11/2026',
    });
    const [read] = adapter.readReport(fake.report([inquiry.caseNumber]));
    expect(read).toMatchObject({
      kind: 'retrieval',
      state: 'warning_closed',
      closedAt: new Date('2026-03-22T00:00:00.000Z'),
    });
  });

  it('finds each field under any of its names, whatever their case and spacing', () => {
    const csv = reportOf({
      ' case number ': 'R1',
      'CASE TYPE': 'Inquiry',
      status: 'Review in Progress',
      'Reason Code': 'C02',
      'Dispute Amount': '49.90',
      Currency: 'eur',
      'Reply By': '2026-04-01',
      'Case Date': '2026-03-01',
      'Charge Date': '2026-02-01',
      'Reference Number': 'INV-9',
      'Closed Date': '',
      'Card Member Name': 'Ada Lovelace',
    });
    expect(adapter.readReport(csv)).toEqual([
      expect.objectContaining({
        id: 'R1',
        kind: 'retrieval',
        state: 'warning_under_review',
        reason: 'credit_not_processed',
        amount: 4990,
        currency: 'eur',
        dueBy: new Date('2026-04-01T00:00:00.000Z'),
        disputedAt: new Date('2026-03-01T00:00:00.000Z'),
        chargedAt: new Date('2026-02-01T00:00:00.000Z'),
        charge: 'INV-9',
        customerName: 'Ada Lovelace',
      }),
    ]);
  });

  it('a closed chargeback is closed on its Closed Date where the report has one', () => {
    const csv = reportOf({
      ...chargeback,
      Status: 'Won',
      'Reply By Date': '03/22/2026',
      'Closed Date': '04/15/2026',
    });
    expect(adapter.readReport(csv)[0]).toMatchObject({
      state: 'won',
      closedAt: new Date('2026-04-15T00:00:00.000Z'),
    });
  });

  it.each([
    ['USD 1,234.56', undefined, 123456, 'usd'],
    ['1234.56 USD', undefined, 123456, 'usd'],
    ['USD1234.5', undefined, 123450, 'usd'],
    ['$1,000.00', 'USD', 100000, 'usd'],
    ['(12.00)', 'usd', 1200, 'usd'],
    ['-12.34 USD', undefined, 1234, 'usd'],
    ['JPY 5,000', undefined, 5000, 'jpy'],
    ['KWD 1.234', undefined, 1234, 'kwd'],
    ['EUR 7.10', 'EUR', 710, 'eur'],
    ['USD 3.000', undefined, 300, 'usd'],
  ] as const)('reads the amount %s (currency column %s) as %i %s', (amount, currency, minor, code) => {
    const row = { ...chargeback, Amount: amount, ...(currency && { Currency: currency }) };
    expect(adapter.readReport(reportOf(row))[0]).toMatchObject({ amount: minor, currency: code });
  });

  it.each([
    [
      'an amount without currency',
      { Amount: '1,234.56' },
      'line 2, column "Amount": "1,234.56" has no currency (download the report with "Include currency")',
    ],
    [
      'too many decimals',
      { Amount: 'USD 12.345' },
      'line 2, column "Amount": "USD 12.345" has more decimals than USD takes',
    ],
    [
      'decimals a currency has none of',
      { Amount: 'JPY 12.5' },
      'line 2, column "Amount": "JPY 12.5" has more decimals than JPY takes',
    ],
    [
      'an amount that is none',
      { Amount: 'USD twelve' },
      'line 2, column "Amount": "USD twelve" is not an amount',
    ],
    [
      'two currencies',
      { Amount: 'USD 12.00', Currency: 'EUR' },
      'line 2, column "Amount": the amount is in USD but the currency column says EUR',
    ],
    [
      'a currency that is no code',
      { Amount: '12.00', Currency: 'Euro' },
      'line 2, column "Currency": "Euro" is not a currency code',
    ],
    [
      'a day-first date',
      { 'Reply By Date': '31/12/2026' },
      'line 2, column "Reply By Date": "31/12/2026" is not a date (MM/DD/YYYY or YYYY-MM-DD)',
    ],
    [
      'a date that does not exist',
      { 'Date Received': '02/30/2026' },
      'line 2, column "Date Received": "02/30/2026" is not a date (MM/DD/YYYY or YYYY-MM-DD)',
    ],
    [
      'an unknown status',
      { Status: 'Escalated' },
      'line 2, column "Status": "Escalated" is not a known status',
    ],
    [
      'an unknown case type',
      { Type: 'Case Update' },
      'line 2, column "Type": "Case Update" is not a known case type',
    ],
    ['an empty case number', { 'Case Number': '' }, 'line 2, column "Case Number": the case number is empty'],
  ])('refuses a row with %s, naming its line and column', (_, cells, message) => {
    expect(refusal(reportOf({ ...chargeback, ...cells })).message).toBe(message);
  });

  it('names the line of the bad row in the file, counting blank lines and line breaks inside cells', () => {
    const csv = [
      csvOf([Object.keys(chargeback), Object.values(chargeback)]),
      '\r\n',
      csvOf([['R2', 'Chargeback', 'Response Needed', 'C08', 'USD 1.00']]),
      csvOf([['R3', 'Chargeback', 'Response Needed', 'C08\nsecond line', 'USD 1.00']]),
      csvOf([['R4', 'Chargeback', 'Pending', 'C08', 'USD 1.00']]),
    ].join('');
    expect(refusal(csv).message).toBe('line 7, column "Status": "Pending" is not a known status');
  });

  it('refuses a report without a required column, and one the CSV reader cannot read', () => {
    const { Amount: _, ...withoutAmount } = chargeback;
    expect(refusal(reportOf(withoutAmount)).message).toBe('line 1: the report has no "Amount" column');
    expect(refusal('Case Number,Type\nR1,"Chargeback\n').message).toMatch(/^line 2: Quote Not Closed/);
    expect(refusal(`${reportOf(chargeback)}R2,Chargeback\n`).message).toMatch(
      /^line 3: Invalid Record Length/,
    );
  });

  it('an empty file, or a header alone, holds no disputes; blank lines and a byte order mark are skipped', () => {
    expect(adapter.readReport('')).toEqual([]);
    expect(adapter.readReport(csvOf([reportHeader]))).toEqual([]);
    expect(adapter.readReport(`\uFEFF\r\n${reportOf(chargeback)}\r\n,,,,\r\n`)).toHaveLength(1);
  });

  it('submitting makes no call: the response package waits for the merchant to upload it', async () => {
    const [id] = fake.addDisputes(1) as [string];
    const [dispute] = adapter.readReport(fake.report([id]));
    const request = contractSubmission(
      dispute as NormalizedDispute,
      { account: contractAccount, credentials: null, baseUrl: fake.server.url, readOnly: false },
      'sub_amex',
    );

    const result = await new AmexAdapter().submitEvidence(request);

    expect(result).toEqual({ reference: null, delivery: 'portal' });
    expect(fake.server.requests).toEqual([]);
  });

  it.each([
    [null, null],
    ['null', null],
    [
      '{}',
      'Amex accounts take no credentials (Amex has no disputes API to call): connect without --credentials-file',
    ],
    [
      '{"api_key":"k"}',
      'Amex accounts take no credentials (Amex has no disputes API to call): connect without --credentials-file',
    ],
    [
      'api_key=k',
      'the credentials file is not JSON, and Amex accounts take no credentials: connect without --credentials-file',
    ],
  ])('takes the credentials %s with %s', (credentials, problem) => {
    expect(adapter.checkCredentials(credentials)).toBe(problem);
  });
});
