import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import type {
  NormalizedDispute,
  ProcessorConnection,
  SubmitEvidenceRequest,
} from '../../src/processors/types.js';

/**
 * What the adapter contract (adapter-contract.ts) and the processors' own tests hand an adapter: the
 * connected account, a submission as the runner builds it, and a logger to search for credentials.
 */

export const contractAccount = {
  uid: '00000000-0000-4000-8000-000000000001',
  id: 'default',
  livemode: false,
};

/** A response package as the submission runner builds it, with a PDF unique to the dispute. */
export function contractSubmission(
  dispute: NormalizedDispute,
  connection: ProcessorConnection,
  idempotencyKey: string,
): SubmitEvidenceRequest {
  const text = `Order 4711 for ${dispute.id} was delivered on 2026-10-01 and signed for by the customer.`;
  // As the rendered document does, the PDF carries the evidence: processors that take documents only
  // (Adyen) receive the text this way.
  const pdf = Buffer.from(
    `%PDF-1.4\n% Rebuttal contract document for ${dispute.id}\n% ${text} Tracking: TRACK-4711\n` +
      '1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  );
  return {
    connection,
    dispute: {
      id: dispute.id,
      charge: dispute.charge ?? 'ch_contract',
      accountId: null,
      reason: dispute.reason,
      kind: dispute.kind,
      amount: dispute.amount,
      currency: dispute.currency,
    },
    evidence: {
      template: 'tmpl_contract',
      fields: { customer_name: 'Ada Lovelace', shipping_tracking_number: 'TRACK-4711' },
      products: [],
      correspondence: [],
      pastPayments: [],
      referenceUrl: null,
    },
    response: {
      evidence: {
        customer_name: 'Ada Lovelace',
        shipping_tracking_number: 'TRACK-4711',
        uncategorized_text: text,
      },
      document: {
        id: 'doc_contract0000000000001',
        filename: `response-${dispute.id}.pdf`,
        pdf,
        sha256: createHash('sha256').update(pdf).digest('hex'),
      },
    },
    files: [],
    idempotencyKey,
    compellingEvidence: null,
    visaComplianceFee: 'refuse',
  };
}

/** Logs at every level into memory, to search for credentials. */
export function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), text: () => lines.join('') };
}

/** Matches the request after `skip` others: the (skip+1)th call from now. */
export function countdown(skip: number) {
  let left = skip;
  return () => left-- === 0;
}

/** What a dispute tells of its card network and the processor's own status (docs/api.md, "The dispute object"). */
export type NetworkFacts = Pick<NormalizedDispute, 'network' | 'networkReasonCode' | 'processorStatus'>;

export const networkFacts = (dispute: NetworkFacts | undefined): NetworkFacts | undefined =>
  dispute && {
    network: dispute.network,
    networkReasonCode: dispute.networkReasonCode,
    processorStatus: dispute.processorStatus,
  };
