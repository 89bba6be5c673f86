import { z } from 'zod';
import type { PastPayment } from '../../domain/evidence.js';
import {
  type AdapterContext,
  baseUrlOf,
  credentialProblem,
  type Hosts,
  openHttp,
  readCredentials,
} from '../connection.js';
import { utcDay } from '../dates.js';
import type {
  AcceptDisputeRequest,
  Capabilities,
  DisputePage,
  EvidenceLimits,
  GetDisputeRequest,
  ListDisputesRequest,
  NormalizedDispute,
  PastPaymentsRequest,
  ProcessorAdapter,
  ProcessorConnection,
  PushRequest,
  PushResult,
  SubmitEvidenceRequest,
  SubmitEvidenceResult,
} from '../types.js';
import { ProcessorError } from '../types.js';
import { BraintreeClient } from './client.js';
import { submitEvidence } from './evidence.js';
import { advance, pageOf, readCursor, searchOf, writeCursor } from './listing.js';
import { evidenceLimits, toNormalizedDispute } from './mapping.js';
import { readWebhook } from './notifications.js';
import { findPastPayments } from './past-payments.js';

/**
 * Braintree (PayPal) through its gateway API (the XML API of the server SDKs), under
 * `/merchants/{merchant_id}/` on api.braintreegateway.com, or api.sandbox.braintreegateway.com for test
 * accounts. HTTP Basic with the API key pair, `X-ApiVersion: 6` as current SDKs send.
 *
 * Credentials (the JSON document given to `account connect --credentials-file`), from the Control Panel's
 * API page:
 * - `merchant_id`: the merchant id;
 * - `public_key`: the API key's public key;
 * - `private_key`: the API key's private key (it also verifies Braintree's webhooks).
 * An account connected read-only holds a key whose role reaches disputes only: the adapter then makes no
 * transaction calls (no past payments).
 *
 * Listing: see listing.ts. Submission: see evidence.ts. Webhooks: see notifications.ts; point Braintree's
 * dispute webhooks at `/processor-hooks/braintree/<account uid>`.
 */

const credentialsSchema = z.strictObject({
  merchant_id: z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be the merchant id from the Control Panel'),
  public_key: z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be the API public key'),
  private_key: z.string().min(1, 'must be the API private key'),
});
type Credentials = z.infer<typeof credentialsSchema>;

const hosts: Hosts = {
  live: 'https://api.braintreegateway.com',
  test: 'https://api.sandbox.braintreegateway.com',
};

/** Braintree publishes no rate limit; a modest pace per account. */
const perSecond = 10;

export class BraintreeAdapter implements ProcessorAdapter {
  readonly name = 'braintree';
  readonly evidenceLimits: EvidenceLimits = evidenceLimits;
  readonly capabilities: Capabilities = {
    list: true,
    get: true,
    submit: 'api',
    fileUpload: true,
    accept: true,
    readOnly: true,
    pastPayments: true,
    push: true,
    kinds: ['chargeback', 'pre_arbitration', 'retrieval'],
    alerts: false,
    refund: false,
  };
  readonly #context: AdapterContext;
  readonly #now: () => Date;

  /** `now` dates listing scans (listing.ts); tests move it. */
  constructor(context: AdapterContext = {}, options: { now?: () => Date } = {}) {
    this.#context = context;
    this.#now = options.now ?? (() => new Date());
  }

  checkCredentials(credentials: string | null): string | null {
    return credentialProblem(credentialsSchema, credentials);
  }

  async listDisputes({ connection, cursor, limit }: ListDisputesRequest): Promise<DisputePage> {
    const at = readCursor(cursor);
    const { page, skip } = pageOf(at);
    const read = await this.#client(connection).searchDisputes(searchOf(at), page);
    const found = read.dispute ?? [];
    const handed = found.slice(skip, skip + Math.max(1, limit));
    const { next, hasMore } = advance(
      at,
      { total: read['total-items'], pageSize: read['page-size'], count: found.length, taken: handed.length },
      utcDay(this.#now()),
    );
    return { disputes: handed.map(toNormalizedDispute), nextCursor: writeCursor(next), hasMore };
  }

  async getDispute({ connection, id }: GetDisputeRequest): Promise<NormalizedDispute | null> {
    const dispute = await this.#client(connection).findDispute(id);
    return dispute && toNormalizedDispute(dispute);
  }

  submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    return submitEvidence(this.#client(request.connection), request);
  }

  /**
   * `PUT disputes/{id}/accept`, only for an OPEN dispute (Braintree refuses any other). A dispute already
   * ACCEPTED was accepted by an earlier call whose answer was lost: done.
   */
  async acceptDispute({ connection, dispute: reference }: AcceptDisputeRequest): Promise<void> {
    const client = this.#client(connection);
    const dispute = await client.findDispute(reference.id);
    if (!dispute) {
      throw new ProcessorError('braintree', `Braintree knows no dispute ${reference.id}.`, {
        retryable: false,
        status: 404,
      });
    }
    if (dispute.status === 'accepted') return;
    if (dispute.status !== 'open') {
      throw new ProcessorError(
        'braintree',
        `Braintree accepts only open disputes; dispute ${dispute.id} is ${dispute.status}.`,
        { retryable: false, status: 422 },
      );
    }
    await client.accept(dispute.id);
  }

  async pastPayments(request: PastPaymentsRequest): Promise<PastPayment[]> {
    const { connection, dispute, limit } = request;
    // A read-only key reaches disputes only; transactions are beyond it.
    if (connection.readOnly || !dispute.charge) return [];
    return findPastPayments(this.#client(connection), dispute.charge, limit, request.compellingEvidence);
  }

  async parsePush({ connection, body }: PushRequest): Promise<PushResult> {
    const credentials = this.#credentials(connection);
    return readWebhook(body, { publicKey: credentials.public_key, privateKey: credentials.private_key });
  }

  #credentials(connection: ProcessorConnection): Credentials {
    return readCredentials(this.name, credentialsSchema, connection);
  }

  /**
   * The account's client: the merchant path is part of the base URL (so the call log, which shows paths,
   * never shows the merchant id), and the account's `--base-url` replaces the host as a whole.
   */
  #client(connection: ProcessorConnection): BraintreeClient {
    const credentials = this.#credentials(connection);
    const merchant = `${baseUrlOf(connection, hosts).replace(/\/+$/, '')}/merchants/${credentials.merchant_id}`;
    const http = openHttp(
      this.#context,
      { ...connection, baseUrl: merchant },
      {
        processor: this.name,
        hosts,
        perSecond,
        headers: {
          authorization: `Basic ${Buffer.from(`${credentials.public_key}:${credentials.private_key}`).toString('base64')}`,
          'x-apiversion': '6',
          accept: 'application/xml',
        },
      },
    );
    return new BraintreeClient(http);
  }
}
