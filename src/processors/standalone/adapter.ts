import { documentOnly } from '../evidence-limits.js';
import type { Capabilities, EvidenceLimits, ProcessorAdapter, SubmitEvidenceResult } from '../types.js';

/**
 * Disputes created through the API (`source: api`) belong to standalone integrations: the merchant
 * uploads the response to its processor itself. Submitting one records the evidence as final, and the
 * response package is what the merchant collects (GET /v1/disputes/:id/response); nothing is sent out.
 */
export class StandaloneAdapter implements ProcessorAdapter {
  readonly name = 'standalone';
  readonly evidenceLimits: EvidenceLimits = documentOnly;
  readonly capabilities: Capabilities = {
    list: false,
    get: false,
    submit: 'portal',
    fileUpload: false,
    accept: false,
    readOnly: false,
    pastPayments: false,
    push: false,
    kinds: ['chargeback', 'pre_arbitration', 'retrieval'],
    alerts: false,
    refund: false,
  };

  async submitEvidence(): Promise<SubmitEvidenceResult> {
    return { reference: null, delivery: 'portal' };
  }
}
