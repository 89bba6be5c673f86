import type { Got, Response } from 'got';
import { errorFromAnswer, errorFromFailure, processorClient } from '../http.js';
import type { SubmitEvidenceRequest, SubmitEvidenceResult } from '../types.js';
import { MockAdapter } from './adapter.js';

/**
 * The mock processor reached over HTTP (MOCK_PROCESSOR_URL), the way a real processor is: this is how
 * several worker processes share one mock (test/fakes/mock-processor.ts serves it). It answers
 * `POST /evidence` with `{reference}`, or an error status with `{message}` and maybe Retry-After.
 */
export class RemoteMockAdapter extends MockAdapter {
  readonly #http: Got;

  constructor(baseUrl: string) {
    super();
    this.#http = processorClient({ baseUrl });
  }

  override async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    this.calls += 1;
    let answer: Response<string>;
    try {
      answer = await this.#http.post('evidence', {
        json: toWire(request),
        headers: { 'idempotency-key': request.idempotencyKey },
      });
    } catch (error) {
      throw errorFromFailure(this.name, error);
    }
    const body = parseBody(answer.body);
    if (answer.statusCode >= 200 && answer.statusCode < 300 && typeof body.reference === 'string') {
      return { reference: body.reference };
    }
    const message = typeof body.message === 'string' ? body.message : `HTTP ${answer.statusCode}`;
    throw errorFromAnswer(this.name, answer, message);
  }
}

/** The PDF travels as base64, as processors that take files in JSON expect it. */
export function toWire(request: SubmitEvidenceRequest) {
  const { document } = request.response;
  return {
    ...request,
    response: { ...request.response, document: { ...document, pdf: document.pdf.toString('base64') } },
  };
}

export function fromWire(wire: ReturnType<typeof toWire>): SubmitEvidenceRequest {
  const { document } = wire.response;
  return {
    ...wire,
    response: { ...wire.response, document: { ...document, pdf: Buffer.from(document.pdf, 'base64') } },
  };
}

function parseBody(text: unknown): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(String(text));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
