import { ProcessorHttp } from '../http.js';
import type { SubmitEvidenceRequest, SubmitEvidenceResult } from '../types.js';
import { MockAdapter } from './adapter.js';

/**
 * The mock processor reached over HTTP (MOCK_PROCESSOR_URL), the way a real processor is: this is how
 * several worker processes share one mock (test/fakes/mock-processor.ts serves it). It answers
 * `POST /evidence` with `{reference}`, or an error status with `{message}` and maybe Retry-After.
 */
export class RemoteMockAdapter extends MockAdapter {
  readonly #http: ProcessorHttp;

  constructor(baseUrl: string) {
    super();
    this.#http = new ProcessorHttp({ processor: this.name, baseUrl });
  }

  override async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    this.calls += 1;
    const { connection: _connection, ...sent } = request;
    const answer = await this.#http.send({
      method: 'POST',
      path: 'evidence',
      json: toWire(sent),
      headers: { 'idempotency-key': request.idempotencyKey },
    });
    const body = parseBody(answer.body);
    if (typeof body.reference === 'string') return { reference: body.reference };
    throw this.#http.unreadable(answer, 'has no reference');
  }
}

type Sent = Omit<SubmitEvidenceRequest, 'connection'>;

/** The PDF and the evidence files travel as base64, as processors that take files in JSON expect them. */
export function toWire(request: Sent) {
  const { document } = request.response;
  return {
    ...request,
    response: { ...request.response, document: { ...document, pdf: document.pdf.toString('base64') } },
    files: request.files.map((file) => ({ ...file, bytes: file.bytes.toString('base64') })),
  };
}

export function fromWire(wire: ReturnType<typeof toWire>): Sent {
  const { document } = wire.response;
  return {
    ...wire,
    response: { ...wire.response, document: { ...document, pdf: Buffer.from(document.pdf, 'base64') } },
    files: wire.files.map((file) => ({ ...file, bytes: Buffer.from(file.bytes, 'base64') })),
  };
}

function parseBody(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
