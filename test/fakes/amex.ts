import type { ContractFake } from '../helpers/adapter-contract.js';
import type { NetworkFacts } from '../helpers/contract-calls.js';
import { FakeServer, jsonReply } from './harness.js';

/**
 * American Express has no merchant disputes API (docs/architecture.md, "Amex"): this fake holds the disputes
 * the Merchant Account's Disputes tool would show, and writes the CSV report that tool downloads, with the
 * columns of a public guide to it (developers.justt.ai/docs/amex-extract, "Include currency" ticked: the
 * amount carries its currency) and the reply-by date the tool shows. Its server answers every request 404,
 * so a call an Amex adapter should never make is seen in `server.requests`.
 */

export interface AmexFakeDispute {
  caseNumber: string;
  type: 'Chargeback' | 'Inquiry';
  status: string;
  reasonCode: string;
  reason: string;
  /** As the report writes it: `USD 1,234.56`. */
  amount: string;
  received: string;
  replyBy: string;
  transactionDate: string;
  chargeReference: string;
  cardMember: string;
}

export const reportHeader = [
  'Case Number',
  'Type',
  'Status',
  'Reason Code',
  'Reason',
  'Amount',
  'Date Received',
  'Reply By Date',
  'Transaction Date',
  'Charge Reference Number',
  'Card Member Account Number',
] as const;

const reasons = [
  { code: 'C08', reason: 'Goods/Services Not Received or Only Partially Received' },
  { code: 'F29', reason: 'Card Not Present' },
  { code: 'C31', reason: 'Goods/Services Not As Described' },
  { code: 'P08', reason: 'Duplicate Charge' },
] as const;

/** One CSV cell, quoted when it must be (RFC 4180). */
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export function csvOf(rows: readonly (readonly string[])[]): string {
  return rows
    .map((row) => row.map(cell).join(','))
    .join('\r\n')
    .concat('\r\n');
}

export class AmexFake implements ContractFake {
  readonly server = new FakeServer(
    () => jsonReply(404, { error: 'American Express publishes no disputes API' }),
    (status, message) => jsonReply(status, { error: message }),
  );
  readonly disputes = new Map<string, AmexFakeDispute>();
  #sequence = 0;

  /** Chargebacks waiting on the merchant ("Response Needed"). */
  addDisputes(count: number): string[] {
    return Array.from({ length: count }, () => this.addDispute().caseNumber);
  }

  addDispute(fields: Partial<AmexFakeDispute> = {}): AmexFakeDispute {
    this.#sequence += 1;
    const { code, reason } = reasons[this.#sequence % reasons.length] ?? reasons[0];
    const cents = 1000 + this.#sequence * 7;
    const dispute: AmexFakeDispute = {
      caseNumber: `R${String(4_100_000_000 + this.#sequence)}`,
      type: 'Chargeback',
      status: 'Response Needed',
      reasonCode: code,
      reason,
      amount: `USD ${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
      // Dated around now, as a fresh report is: the reply-by date still ahead.
      received: daysFromToday(-5),
      replyBy: daysFromToday(15),
      transactionDate: daysFromToday(-30),
      chargeReference: `ROC${String(this.#sequence).padStart(8, '0')}`,
      cardMember: 'xxxxxxxxxxx1005',
      ...fields,
    };
    this.disputes.set(dispute.caseNumber, dispute);
    return dispute;
  }

  move(id: string, to: 'under_review' | 'won' | 'lost'): void {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`the fake holds no case ${id}`);
    dispute.status = { under_review: 'Review in Progress', won: 'Won', lost: 'Lost' }[to];
  }

  /** Nothing reaches Amex: the merchant uploads the response in the Disputes tool. */
  submissionCount(): number {
    return 0;
  }

  submitted(): undefined {
    return undefined;
  }

  accepted(): boolean {
    return false;
  }

  /** Every case is Amex's own, with its code, and the status as the tool writes it. */
  reported(id: string): NetworkFacts {
    const dispute = this.disputes.get(id) as AmexFakeDispute;
    return { network: 'amex', networkReasonCode: dispute.reasonCode, processorStatus: dispute.status };
  }

  /** The report as the Disputes tool downloads it, of these cases as they stand now. */
  report(ids: readonly string[]): string {
    const rows = ids.map((id) => {
      const dispute = this.disputes.get(id);
      if (!dispute) throw new Error(`the fake holds no case ${id}`);
      return [
        dispute.caseNumber,
        dispute.type,
        dispute.status,
        dispute.reasonCode,
        dispute.reason,
        dispute.amount,
        dispute.received,
        dispute.replyBy,
        dispute.transactionDate,
        dispute.chargeReference,
        dispute.cardMember,
      ];
    });
    return csvOf([reportHeader, ...rows]);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

export async function startAmexFake(): Promise<AmexFake> {
  const fake = new AmexFake();
  await fake.server.start();
  return fake;
}

/** A day relative to today as the Disputes tool prints dates: MM/DD/YYYY. */
function daysFromToday(days: number): string {
  const at = new Date(Date.now() + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}/${at.getUTCFullYear()}`;
}
