import { z } from 'zod';
import type { HttpAnswer, HttpCall, ProcessorHttp } from '../http.js';
import { ProcessorError } from '../types.js';
import { type BraintreeDispute, braintreeDispute, list } from './mapping.js';
import { readRoot, readXml, writeXml, type XmlInput, type XmlValue } from './xml.js';

/**
 * The calls of Braintree's gateway API this service makes, relative to `/merchants/{merchant_id}/` (the
 * HTTP layer's base URL, so the merchant id stays out of the call log). Braintree answers 2xx, 404 for
 * an unknown object, and 422 with an `<api-error-response>` for a refusal (braintree_python `http.py`);
 * a refusal is a permanent ProcessorError carrying Braintree's message and error codes.
 * Reads (searches included) are marked idempotent, so the HTTP layer may send them again; changes never
 * are: Braintree takes no idempotency key, and the submission checks the dispute's state instead.
 */

const xmlHeaders = { 'content-type': 'application/xml' };

const evidenceCreated = z.object({ id: z.string().min(1) });
const documentUpload = z.object({ id: z.string().min(1) });
const disputePage = z.object({
  'page-size': z.number().int().positive(),
  'total-items': z.number().int().nonnegative(),
  dispute: list(braintreeDispute).nullish(),
});
export type DisputePageRead = z.infer<typeof disputePage>;

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/);
const cardTransaction = z.object({
  id: z.string().min(1),
  'created-at': z.string().nullish(),
  'credit-card': z.object({ 'unique-number-identifier': z.string().nullish() }).nullish(),
});
export const searchedTransaction = z.object({
  id: z.string().min(1),
  type: z.string().nullish(),
  status: z.string().nullish(),
  amount: decimal,
  'currency-iso-code': z.string().regex(/^[A-Za-z]{3}$/),
  'created-at': z.string().refine((value) => !Number.isNaN(Date.parse(value))),
  customer: z.object({ id: z.string().nullish() }).nullish(),
  shipping: z.record(z.string(), z.unknown()).nullish(),
  disputes: list(z.unknown()).nullish(),
  /** The refunds of a sale (its credits' ids): a refunded sale is no past payment. */
  'refund-ids': list(z.unknown()).nullish(),
});
export type SearchedTransaction = z.infer<typeof searchedTransaction>;
const transactionIds = z.object({ 'page-size': z.number().int().positive(), ids: list(z.string()) });
const transactions = z.object({ transaction: list(searchedTransaction).nullish() });

export class BraintreeClient {
  readonly #http: ProcessorHttp;

  constructor(http: ProcessorHttp) {
    this.#http = http;
  }

  /** `POST disputes/advanced_search?page=N`: one page of the search, in Braintree's fixed page size. */
  async searchDisputes(search: XmlInput, page: number): Promise<DisputePageRead> {
    const answer = await this.#send({
      method: 'POST',
      path: 'disputes/advanced_search',
      searchParams: { page },
      headers: xmlHeaders,
      body: writeXml('search', search),
      idempotent: true,
    });
    return this.#read(answer, 'disputes', disputePage);
  }

  /** `GET disputes/{id}`, with its evidence; null when Braintree knows no such dispute. */
  async findDispute(id: string): Promise<BraintreeDispute | null> {
    const answer = await this.#send({
      method: 'GET',
      path: `disputes/${segment(id)}`,
      idempotent: true,
      answers: [404],
    });
    return answer.status === 404 ? null : this.#read(answer, 'dispute', braintreeDispute);
  }

  /** `POST disputes/{id}/evidence` with `comments`: text evidence, answered with the evidence's id. */
  async addTextEvidence(
    disputeId: string,
    comments: string,
    categorized?: { category: string; sequenceNumber: string | null },
  ): Promise<string> {
    const answer = await this.#write({
      method: 'POST',
      path: `disputes/${segment(disputeId)}/evidence`,
      headers: xmlHeaders,
      body: writeXml('evidence', {
        comments,
        ...(categorized ? { category: categorized.category } : {}),
        ...(categorized?.sequenceNumber ? { 'sequence-number': categorized.sequenceNumber } : {}),
      }),
    });
    return this.#read(answer, 'evidence', evidenceCreated).id;
  }

  /**
   * `POST document_uploads` (multipart): `document_upload[kind]=evidence_document` and the file in the
   * part `file`, as braintree_python's DocumentUploadGateway sends it. Answers the upload's id.
   */
  async uploadDocument(document: { filename: string; bytes: Buffer; contentType: string }): Promise<string> {
    const answer = await this.#write({
      method: 'POST',
      path: 'document_uploads',
      multipart: [
        { name: 'document_upload[kind]', value: 'evidence_document' },
        {
          name: 'file',
          value: document.bytes,
          filename: document.filename,
          contentType: document.contentType,
        },
      ],
    });
    return this.#read(answer, 'document-upload', documentUpload).id;
  }

  /**
   * `POST disputes/{id}/evidence` with `document-upload-id`: attaches an uploaded file, in one of
   * Braintree's file evidence categories where given (Dispute: Add File Evidence).
   */
  async attachDocument(disputeId: string, documentUploadId: string, category?: string): Promise<string> {
    const answer = await this.#write({
      method: 'POST',
      path: `disputes/${segment(disputeId)}/evidence`,
      headers: xmlHeaders,
      body: writeXml('evidence', {
        'document-upload-id': documentUploadId,
        ...(category === undefined ? {} : { category }),
      }),
    });
    return this.#read(answer, 'evidence', evidenceCreated).id;
  }

  /** `DELETE disputes/{id}/evidence/{evidence_id}`. */
  async removeEvidence(disputeId: string, evidenceId: string): Promise<void> {
    await this.#write({
      method: 'DELETE',
      path: `disputes/${segment(disputeId)}/evidence/${segment(evidenceId)}`,
    });
  }

  /** `PUT disputes/{id}/finalize`: sends the evidence on; the dispute becomes DISPUTED. */
  async finalize(disputeId: string): Promise<void> {
    await this.#write({
      method: 'PUT',
      path: `disputes/${segment(disputeId)}/finalize`,
      headers: xmlHeaders,
    });
  }

  /** `PUT disputes/{id}/accept`. */
  async accept(disputeId: string): Promise<void> {
    await this.#write({ method: 'PUT', path: `disputes/${segment(disputeId)}/accept`, headers: xmlHeaders });
  }

  /** `GET transactions/{id}`: the card behind a transaction; null when Braintree knows no such one. */
  async findTransaction(id: string): Promise<z.infer<typeof cardTransaction> | null> {
    const answer = await this.#send({
      method: 'GET',
      path: `transactions/${segment(id)}`,
      idempotent: true,
      answers: [404],
    });
    return answer.status === 404 ? null : this.#read(answer, 'transaction', cardTransaction);
  }

  /** `POST transactions/advanced_search_ids`: every id matching, and the page size to fetch them by. */
  async searchTransactionIds(search: XmlInput): Promise<{ pageSize: number; ids: string[] }> {
    const answer = await this.#send({
      method: 'POST',
      path: 'transactions/advanced_search_ids',
      headers: xmlHeaders,
      body: writeXml('search', search),
      idempotent: true,
    });
    const read = this.#read(answer, 'search-results', transactionIds);
    return { pageSize: read['page-size'], ids: read.ids };
  }

  /** `POST transactions/advanced_search` with `ids`: the transactions themselves, a page at a time. */
  async searchTransactions(search: XmlInput): Promise<SearchedTransaction[]> {
    const answer = await this.#send({
      method: 'POST',
      path: 'transactions/advanced_search',
      headers: xmlHeaders,
      body: writeXml('search', search),
      idempotent: true,
    });
    return this.#read(answer, 'credit-card-transactions', transactions).transaction ?? [];
  }

  /** A change: sent once (Braintree takes no idempotency key), with its refusal read as one. */
  async #write(call: HttpCall): Promise<HttpAnswer> {
    return this.#send({ ...call, idempotent: false, answers: [422] });
  }

  async #send(call: HttpCall): Promise<HttpAnswer> {
    const answer = await this.#http.send(call);
    if (answer.status === 422 || /^\s*(<\?xml[^>]*>\s*)?<api-error-response[\s>]/.test(answer.body)) {
      throw this.#refusal(answer);
    }
    return answer;
  }

  #read<Schema extends z.ZodType>(answer: HttpAnswer, root: string, schema: Schema): z.infer<Schema> {
    return this.#http.read(answer, schema, readRoot(root));
  }

  /** Braintree's `<api-error-response>`: its message and the codes of its validation errors. */
  #refusal(answer: HttpAnswer): ProcessorError {
    let read: { root: string; value: XmlValue };
    try {
      read = readXml(answer.body);
    } catch {
      return this.#http.unreadable(answer, 'is a refusal in an unexpected format');
    }
    const message = (read.value as Record<string, XmlValue> | null)?.message;
    const codes = errorCodes(read.value);
    const said = typeof message === 'string' && message ? message : 'no message';
    return new ProcessorError(
      'braintree',
      `Braintree refused the request: ${said}${codes.length ? ` (error codes ${codes.join(', ')})` : ''}.`,
      { retryable: false, status: answer.status, excerpt: this.#http.excerpt(answer.body) },
    );
  }
}

/** Every `<error><code>` under an error response, wherever Braintree nests it (by object, then field). */
function errorCodes(value: XmlValue): string[] {
  if (Array.isArray(value)) return value.flatMap(errorCodes);
  if (value === null || typeof value !== 'object') return [];
  const own = typeof value.code === 'string' || typeof value.code === 'number' ? [String(value.code)] : [];
  return [...own, ...Object.values(value).flatMap(errorCodes)];
}

/** An id as one path segment (Braintree's SDKs refuse ids that are not, braintree_ruby `Util`). */
function segment(id: string): string {
  return encodeURIComponent(id);
}
