import type { ProcessorAdapter, SubmitEvidenceResult } from '../types.js';

/**
 * Disputes created through the API (`source: api`) belong to standalone integrations: the merchant
 * uploads the response to its processor itself. Submitting one records the evidence as final, and the
 * response package is what the merchant collects (GET /v1/disputes/:id/response); nothing is sent out.
 */
export class StandaloneAdapter implements ProcessorAdapter {
  readonly name = 'standalone';

  async submitEvidence(): Promise<SubmitEvidenceResult> {
    return { reference: null };
  }
}
