import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ContractFake } from '../helpers/adapter-contract.js';
import {
  basicCredentials,
  type FakeReply,
  type FakeRequest,
  FakeServer,
  jsonReply,
  multipartParts,
} from './harness.js';

/**
 * A fake PayPal (REST API: OAuth 2.0 and Disputes API v1), modelled on the official OpenAPI file
 * (paypal/paypal-rest-api-specifications, openapi/customer_disputes_v1.json) and PayPal's REST docs:
 * - `POST /v1/oauth2/token`: HTTP Basic client credentials and `grant_type=client_credentials`; wrong
 *   ones answer 401 `invalid_client`. Tokens expire; every API call needs a live Bearer token, else 401
 *   `invalid_token`.
 * - `GET /v1/customer/disputes`: summaries, newest created first, filtered by `update_time_after` (within
 *   the last 180 days, else 400), `page_size` 1-50, paged by `next_page_token` in a `next` HATEOAS link
 *   (an offset, as a page number is: a dispute updated into the result before the reader's position
 *   shifts the rest). Times have whole seconds, as PayPal's examples do.
 * - `GET /v1/customer/disputes/{id}`: the full dispute, with the action links its status allows; 404
 *   RESOURCE_NOT_FOUND for an unknown id.
 * - `POST …/provide-evidence` (multipart: JSON part `input`, whose evidences name their documents, each
 *   file in an `evidence-file` part under that name; files under 10 MB, 50 MB a request) and
 *   `POST …/accept-claim` (JSON `note`): only while WAITING_FOR_SELLER_RESPONSE with the link present,
 *   else 422 UNPROCESSABLE_ENTITY. A repeated PayPal-Request-Id gets the first answer again.
 *   Evidence moves the dispute to UNDER_REVIEW; accepting resolves it with outcome ACCEPTED.
 * - `POST /v1/notifications/verify-webhook-signature`: SUCCESS for a transmission this fake signed
 *   (HMAC of `transmission_id|transmission_time|webhook_id|crc32(event)` under its own key, standing in
 *   for PayPal's certificate), FAILURE otherwise.
 * Errors carry PayPal's body `{name, message, debug_id, details[]}`.
 */

export interface PaypalFakeOptions {
  clientId?: string;
  clientSecret?: string;
  /** The id of the webhook the merchant registered: verification passes only for it. */
  webhookId?: string;
  /** Seconds a token lives. Default 32400 (nine hours, as PayPal's do). */
  tokenLifetime?: number;
}

/** A dispute as PayPal holds it, in its own field names. */
export interface PaypalFakeDispute {
  dispute_id: string;
  create_time: string;
  update_time: string;
  disputed_transactions: Record<string, unknown>[];
  reason: string;
  status: string;
  dispute_state: string;
  dispute_amount: { currency_code: string; value: string };
  dispute_life_cycle_stage: string;
  dispute_channel: string;
  seller_response_due_date?: string;
  dispute_outcome?: { outcome_code: string };
  external_reason_code?: string;
  evidences: Record<string, unknown>[];
  money_movements?: Record<string, unknown>[];
  adjudications?: Record<string, unknown>[];
  allowed_response_options?: Record<string, unknown>;
}

interface Held {
  dispute: PaypalFakeDispute;
  /** Insertion order: PayPal's tie-break among disputes created in the same second. */
  order: number;
  /** PayPal withdrew the merchant's actions (no provide-evidence / accept-claim links). */
  actionsWithdrawn: boolean;
  submissions: Submission[];
  accepted: boolean;
}

/** One provide-evidence call: its notes, its files, and each file with the evidence type naming it. */
interface Submission {
  text: string;
  files: Buffer[];
  documents: { type: string; name: string; bytes: Buffer }[];
}

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: FakeRequest['headers'];
  body: Buffer;
}

export interface PaypalFake extends ContractFake {
  readonly webhookId: string;
  /** Every call the fake answered, in order, with its body. */
  readonly calls: RecordedCall[];
  /** Tokens issued so far. */
  readonly tokensIssued: () => number;
  /** Makes every issued token invalid, as a revocation or an early expiry does. */
  revokeTokens(): void;
  /** Moves the fake's clock forward (listing filters and the 180-day window follow it). */
  advance(ms: number): void;
  /** Adds or replaces a dispute exactly as given. */
  put(dispute: PaypalFakeDispute, options?: { actionsWithdrawn?: boolean }): void;
  /** Changes fields of a dispute, stamping a new update_time. */
  update(id: string, changes: Partial<PaypalFakeDispute>): void;
  dispute(id: string): PaypalFakeDispute | undefined;
  /** A signed webhook delivery about the dispute, as PayPal would POST it. */
  webhook(id: string, eventType?: string): { headers: Record<string, string>; body: Buffer };
}

const sandbox = 'https://api-m.sandbox.paypal.com';
const day = 24 * 3600_000;
const reasons = [
  'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
  'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED',
  'UNAUTHORISED',
  'CREDIT_NOT_PROCESSED',
  'DUPLICATE_TRANSACTION',
  'INCORRECT_AMOUNT',
];
const fileTypes = new Set(['application/pdf', 'image/jpeg', 'image/gif', 'image/png']);
const mebibyte = 1024 * 1024;
const documentNamePattern = /^[A-Za-z0-9-_,\s]+[.]{1}[A-Za-z]+$/;

const debugId = () => randomBytes(7).toString('hex');

/** PayPal's error body (OpenAPI `error`). */
function paypalError(status: number, name: string, message: string, details: unknown[] = []): FakeReply {
  return jsonReply(status, {
    name,
    message,
    debug_id: debugId(),
    ...(details.length > 0 && { details }),
    information_link: `https://developer.paypal.com/api/rest/reference/orders/v2/errors/#${name}`,
  });
}

/** What PayPal's edge answers when the harness injects a fault. */
function errorShape(status: number): FakeReply {
  if (status === 429)
    return paypalError(429, 'RATE_LIMIT_REACHED', 'Too many requests. Blocked due to rate limiting.');
  if (status === 503) return paypalError(503, 'SERVICE_UNAVAILABLE', 'Service Unavailable.');
  return paypalError(status, 'INTERNAL_SERVER_ERROR', 'An internal server error occurred.');
}

const wholeSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

export async function startPaypalFake(options: PaypalFakeOptions = {}): Promise<PaypalFake> {
  const clientId = options.clientId ?? 'AYfake-client-id-0000000000';
  const clientSecret = options.clientSecret ?? 'EHfake-client-secret-000000';
  const webhookId = options.webhookId ?? '8PT597110X687430LKGECATA';
  const tokenLifetime = options.tokenLifetime ?? 32400;
  const signingKey = randomBytes(32);
  const disputes = new Map<string, Held>();
  const tokens = new Map<string, number>();
  const replays = new Map<string, FakeReply>();
  const calls: RecordedCall[] = [];
  let offset = 0;
  let issued = 0;
  let sequence = 0;
  const now = () => Date.now() + offset;
  const stamp = () => wholeSeconds(now());

  const reply = (status: number, body: unknown) =>
    jsonReply(status, body, { date: new Date(now()).toUTCString() });
  const notFound = () =>
    paypalError(404, 'RESOURCE_NOT_FOUND', 'The specified resource does not exist.', [
      { issue: 'INVALID_RESOURCE_ID', description: 'Requested resource ID was not found.' },
    ]);
  const invalid = (field: string, issue: string, description: string) =>
    paypalError(
      400,
      'INVALID_REQUEST',
      'Request is not well-formed, syntactically incorrect, or violates schema.',
      [{ field, location: 'query', issue, description }],
    );

  function linksOf(held: Held): Record<string, string>[] {
    const self = `${sandbox}/v1/customer/disputes/${held.dispute.dispute_id}`;
    const links = [{ href: self, rel: 'self', method: 'GET' }];
    if (held.dispute.status === 'WAITING_FOR_SELLER_RESPONSE' && !held.actionsWithdrawn) {
      links.push({ href: `${self}/provide-evidence`, rel: 'provide-evidence', method: 'POST' });
      links.push({ href: `${self}/accept-claim`, rel: 'accept-claim', method: 'POST' });
    }
    return links;
  }

  const full = (held: Held) => ({ ...held.dispute, links: linksOf(held) });

  function summary(held: Held) {
    const { dispute } = held;
    return {
      dispute_id: dispute.dispute_id,
      create_time: dispute.create_time,
      update_time: dispute.update_time,
      reason: dispute.reason,
      status: dispute.status,
      dispute_state: dispute.dispute_state,
      dispute_amount: dispute.dispute_amount,
      dispute_life_cycle_stage: dispute.dispute_life_cycle_stage,
      dispute_channel: dispute.dispute_channel,
      ...(dispute.seller_response_due_date && { seller_response_due_date: dispute.seller_response_due_date }),
      links: [{ href: `${sandbox}/v1/customer/disputes/${dispute.dispute_id}`, rel: 'self', method: 'GET' }],
    };
  }

  function token(request: FakeRequest): FakeReply {
    const credentials = basicCredentials(request);
    if (credentials?.user !== clientId || credentials.password !== clientSecret) {
      return jsonReply(401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
    }
    if (new URLSearchParams(request.body.toString('utf8')).get('grant_type') !== 'client_credentials') {
      return jsonReply(400, { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' });
    }
    issued += 1;
    const value = `A21AA${randomBytes(24).toString('base64url')}`;
    tokens.set(value, now() + tokenLifetime * 1000);
    return reply(200, {
      scope:
        'https://uri.paypal.com/services/disputes/read-seller https://uri.paypal.com/services/disputes/update-seller',
      access_token: value,
      token_type: 'Bearer',
      app_id: 'APP-80W284485P519543T',
      expires_in: tokenLifetime,
      nonce: `${stamp()}${randomBytes(8).toString('hex')}`,
    });
  }

  function authorized(request: FakeRequest): boolean {
    const header = request.headers.authorization ?? '';
    const expires = header.startsWith('Bearer ') ? tokens.get(header.slice(7)) : undefined;
    return expires !== undefined && expires > now();
  }

  function list(request: FakeRequest): FakeReply {
    const pageSize = Number(request.query.get('page_size') ?? '10');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) {
      return invalid('page_size', 'INVALID_PARAMETER_VALUE', 'page_size must be between 1 and 50.');
    }
    const afterText = request.query.get('update_time_after');
    const after = afterText === null ? now() - 180 * day : Date.parse(afterText);
    if (Number.isNaN(after) || after < now() - 180 * day) {
      return invalid(
        'update_time_after',
        'INVALID_PARAMETER_VALUE',
        'update_time_after must be within the last 180 days.',
      );
    }
    const pageToken = request.query.get('next_page_token');
    const start = pageToken === null ? 0 : Number(Buffer.from(pageToken, 'base64').toString('utf8'));
    if (
      !Number.isInteger(start) ||
      start < 0 ||
      (pageToken !== null && !/^[A-Za-z0-9+/=]+$/.test(pageToken))
    ) {
      return invalid('next_page_token', 'INVALID_PARAMETER_VALUE', 'The next_page_token is invalid.');
    }
    const matching = [...disputes.values()]
      .filter((held) => Date.parse(held.dispute.update_time) > after)
      .sort((a, b) => b.dispute.create_time.localeCompare(a.dispute.create_time) || b.order - a.order);
    const items = matching.slice(start, start + pageSize).map(summary);
    const query = new URLSearchParams(request.query);
    query.delete('next_page_token');
    const links = [{ href: `${sandbox}/v1/customer/disputes?${request.query}`, rel: 'self', method: 'GET' }];
    if (start + pageSize < matching.length) {
      query.set('next_page_token', Buffer.from(String(start + pageSize)).toString('base64'));
      links.push({ href: `${sandbox}/v1/customer/disputes?${query}`, rel: 'next', method: 'GET' });
    }
    // The OpenAPI file gives `items` at least one element: an empty result has none at all.
    return reply(200, { ...(items.length > 0 && { items }), links });
  }

  /** A POST answered once; the same PayPal-Request-Id on the same path gets the same answer again. */
  function once(request: FakeRequest, act: () => FakeReply): FakeReply {
    const requestId = request.headers['paypal-request-id'];
    const key = typeof requestId === 'string' ? `${request.path}\n${requestId}` : undefined;
    const replayed = key === undefined ? undefined : replays.get(key);
    if (replayed) return replayed;
    const answer = act();
    if (key !== undefined && answer.status < 500) replays.set(key, answer);
    return answer;
  }

  const unprocessable = (description: string) =>
    paypalError(
      422,
      'UNPROCESSABLE_ENTITY',
      'The requested action could not be performed, semantically incorrect, or failed business validation.',
      [{ issue: 'ACTION_NOT_ALLOWED', description }],
    );
  const actionable = (held: Held) =>
    held.dispute.status === 'WAITING_FOR_SELLER_RESPONSE' && !held.actionsWithdrawn;
  const detailLinks = (id: string) => ({
    links: [{ href: `${sandbox}/v1/customer/disputes/${id}`, rel: 'self', method: 'GET' }],
  });

  function provideEvidence(request: FakeRequest, held: Held): FakeReply {
    if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
      return paypalError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        "The server does not support the request payload's media type.",
      );
    }
    const parts = multipartParts(request);
    const inputPart = parts.find((part) => part.name === 'input');
    let input: { evidences?: { evidence_type?: string; notes?: string; documents?: { name?: string }[] }[] };
    try {
      input = JSON.parse(inputPart?.data.toString('utf8') ?? '');
    } catch {
      return invalid('input', 'MISSING_REQUIRED_PARAMETER', 'The input part is required and must be JSON.');
    }
    const evidences = input.evidences ?? [];
    const files = parts.filter((part) => part.name === 'evidence-file');
    const names = new Set(files.map((file) => file.filename));
    for (const evidence of evidences) {
      if (!evidence.evidence_type)
        return invalid('evidence_type', 'MISSING_REQUIRED_PARAMETER', 'evidence_type is required.');
      if (evidence.notes !== undefined && (evidence.notes.length < 1 || evidence.notes.length > 2000)) {
        return invalid('notes', 'INVALID_STRING_LENGTH', 'notes must be 1 to 2000 characters.');
      }
      for (const document of evidence.documents ?? []) {
        if (!document.name || !documentNamePattern.test(document.name) || !names.has(document.name)) {
          return invalid(
            'documents',
            'INVALID_PARAMETER_VALUE',
            `No valid file for document ${document.name}.`,
          );
        }
      }
    }
    if (evidences.length === 0)
      return invalid('evidences', 'MISSING_REQUIRED_PARAMETER', 'evidences is required.');
    for (const file of files) {
      if (!fileTypes.has(file.contentType ?? '') || file.data.length >= 10 * mebibyte) {
        return invalid('evidence-file', 'INVALID_FILE', 'Files must be JPG, GIF, PNG or PDF under 10 MB.');
      }
    }
    if (files.reduce((total, file) => total + file.data.length, 0) > 50 * mebibyte) {
      return invalid('evidence-file', 'INVALID_FILE', 'Files must total at most 50 MB per request.');
    }
    if (!actionable(held))
      return unprocessable('Evidence cannot be provided for the dispute in its current status.');
    const date = stamp();
    for (const evidence of evidences) {
      held.dispute.evidences.push({ ...evidence, source: 'SUBMITTED_BY_SELLER', date });
    }
    const byName = new Map(files.map((file) => [file.filename, file.data]));
    held.submissions.push({
      text: evidences.map((evidence) => evidence.notes ?? '').join('\n'),
      files: files.map((file) => file.data),
      documents: evidences.flatMap((evidence) =>
        (evidence.documents ?? []).map((document) => ({
          type: evidence.evidence_type as string,
          name: document.name as string,
          bytes: byName.get(document.name) as Buffer,
        })),
      ),
    });
    Object.assign(held.dispute, {
      status: 'UNDER_REVIEW',
      dispute_state: 'UNDER_PAYPAL_REVIEW',
      update_time: date,
    });
    return reply(200, detailLinks(held.dispute.dispute_id));
  }

  function acceptClaim(request: FakeRequest, held: Held): FakeReply {
    let body: { note?: unknown; accept_claim_type?: unknown };
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return invalid('note', 'MALFORMED_REQUEST_JSON', 'The request JSON is not well formed.');
    }
    if (typeof body.note !== 'string' || body.note.length < 1 || body.note.length > 2000) {
      return invalid('note', 'MISSING_REQUIRED_PARAMETER', 'note is required, at most 2000 characters.');
    }
    const allowed = (held.dispute.allowed_response_options?.accept_claim as { accept_claim_types?: string[] })
      ?.accept_claim_types;
    if (body.accept_claim_type !== undefined && !allowed?.includes(String(body.accept_claim_type))) {
      return unprocessable('The accept_claim_type is not allowed for the dispute.');
    }
    if (!actionable(held)) return unprocessable('The claim cannot be accepted in its current status.');
    held.accepted = true;
    Object.assign(held.dispute, {
      status: 'RESOLVED',
      dispute_state: 'RESOLVED',
      dispute_outcome: { outcome_code: 'ACCEPTED' },
      update_time: stamp(),
    });
    return reply(200, detailLinks(held.dispute.dispute_id));
  }

  const signatureOf = (id: string, time: string, webhook: string, event: string) =>
    createHmac('sha256', signingKey)
      .update(`${id}|${time}|${webhook}|${crc32(Buffer.from(event))}`)
      .digest('base64');

  function verify(request: FakeRequest): FakeReply {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return invalid('body', 'MALFORMED_REQUEST_JSON', 'The request JSON is not well formed.');
    }
    const fields = [
      'auth_algo',
      'cert_url',
      'transmission_id',
      'transmission_sig',
      'transmission_time',
      'webhook_id',
    ];
    const missing = [...fields, 'webhook_event'].filter(
      (field) => body[field] === undefined || body[field] === '',
    );
    if (missing.length > 0) {
      return paypalError(
        400,
        'VALIDATION_ERROR',
        'Invalid request - see details',
        missing.map((field) => ({ field, issue: 'Required field cannot be blank' })),
      );
    }
    const expected = signatureOf(
      String(body.transmission_id),
      String(body.transmission_time),
      String(body.webhook_id),
      JSON.stringify(body.webhook_event),
    );
    const verified = body.webhook_id === webhookId && body.transmission_sig === expected;
    return reply(200, { verification_status: verified ? 'SUCCESS' : 'FAILURE' });
  }

  function route(request: FakeRequest): FakeReply {
    calls.push({
      method: request.method,
      path: request.path,
      query: request.query,
      headers: request.headers,
      body: request.body,
    });
    if (request.method === 'POST' && request.path === '/v1/oauth2/token') return token(request);
    if (!authorized(request)) {
      return jsonReply(401, {
        error: 'invalid_token',
        error_description: 'The token passed in was not found in the system',
      });
    }
    if (request.method === 'POST' && request.path === '/v1/notifications/verify-webhook-signature')
      return verify(request);
    if (request.method === 'GET' && request.path === '/v1/customer/disputes') return list(request);
    const match = /^\/v1\/customer\/disputes\/([^/]+)(?:\/([a-z-]+))?$/.exec(request.path);
    const target = match ? disputes.get(decodeURIComponent(match[1] ?? '')) : undefined;
    const action = match?.[2];
    if (request.method === 'GET' && match && action === undefined)
      return target ? reply(200, full(target)) : notFound();
    if (request.method !== 'POST' || !target) return notFound();
    if (action === 'provide-evidence') return once(request, () => provideEvidence(request, target));
    if (action === 'accept-claim') return once(request, () => acceptClaim(request, target));
    return notFound();
  }

  const server = await new FakeServer(route, errorShape).start();

  function held(id: string): Held {
    const found = disputes.get(id);
    if (!found) throw new Error(`the fake holds no dispute ${id}`);
    return found;
  }

  function put(dispute: PaypalFakeDispute, { actionsWithdrawn = false } = {}) {
    sequence += 1;
    disputes.set(dispute.dispute_id, {
      dispute,
      order: sequence,
      actionsWithdrawn,
      submissions: [],
      accepted: false,
    });
  }

  return {
    server,
    webhookId,
    calls,
    tokensIssued: () => issued,
    revokeTokens: () => tokens.clear(),
    advance(ms) {
      offset += ms;
    },
    put,
    update(id, changes) {
      Object.assign(held(id).dispute, changes, { update_time: stamp() });
    },
    dispute: (id) => disputes.get(id)?.dispute,
    addDisputes(count) {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) {
        const number = sequence + 1;
        const id = `PP-D-${100000 + number}`;
        const yen = number % 7 === 0;
        const value = yen
          ? String(1000 + number)
          : `${(number % 400) + 5}.${String(number % 100).padStart(2, '0')}`;
        const amount = { currency_code: yen ? 'JPY' : 'USD', value };
        const time = stamp();
        put({
          dispute_id: id,
          create_time: time,
          update_time: time,
          disputed_transactions: [
            {
              seller_transaction_id: `${number}`.padStart(8, '0').concat('SELLERTX1'),
              buyer_transaction_id: `${number}`.padStart(8, '0').concat('BUYERTX01'),
              create_time: wholeSeconds(now() - 30 * day),
              transaction_status: 'COMPLETED',
              gross_amount: amount,
              buyer: { name: `Buyer ${number}` },
            },
          ],
          reason: reasons[number % reasons.length] as string,
          status: 'WAITING_FOR_SELLER_RESPONSE',
          dispute_state: 'REQUIRED_ACTION',
          dispute_amount: amount,
          dispute_life_cycle_stage: 'CHARGEBACK',
          // Every third is a card issuer's chargeback of an unbranded card payment, which alone carries the
          // network's code ("available for only unbranded transactions").
          dispute_channel: number % 3 === 0 ? 'EXTERNAL' : 'INTERNAL',
          ...(number % 3 === 0 && { external_reason_code: '13.1' }),
          seller_response_due_date: wholeSeconds(now() + 10 * day),
          evidences: [],
          allowed_response_options: { accept_claim: { accept_claim_types: ['REFUND'] } },
        });
        ids.push(id);
      }
      return ids;
    },
    move(id, to) {
      const target = held(id);
      const changes = {
        under_review: { status: 'UNDER_REVIEW', dispute_state: 'UNDER_PAYPAL_REVIEW' },
        won: {
          status: 'RESOLVED',
          dispute_state: 'RESOLVED',
          dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
        },
        lost: {
          status: 'RESOLVED',
          dispute_state: 'RESOLVED',
          dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR' },
        },
      }[to];
      Object.assign(target.dispute, changes, { update_time: stamp() });
    },
    // PayPal names no card network; its code and status are passed as given.
    reported: (id) => ({
      network: null,
      networkReasonCode: held(id).dispute.external_reason_code ?? null,
      processorStatus: held(id).dispute.status,
    }),
    submissionCount: (id) => held(id).submissions.length,
    submitted: (id) => held(id).submissions.at(-1),
    // The response document travels as OTHER evidence, which no evidence file category goes in
    // (paypalEvidenceLimits): every other document is an evidence file in its evidence type.
    slotted: (id) =>
      (held(id).submissions.at(-1)?.documents ?? [])
        .filter(({ type }) => type !== 'OTHER')
        .map(({ type, bytes }) => ({ slot: type, bytes })),
    // Every document PayPal holds, the response document included: one call carries them all.
    uploadCount: () =>
      [...disputes.values()]
        .flatMap((dispute) => dispute.submissions)
        .flatMap((submission) => submission.documents).length,
    accepted: (id) => held(id).accepted,
    webhook(id, eventType = 'CUSTOMER.DISPUTE.UPDATED') {
      const event = {
        id: `WH-${randomBytes(8).toString('hex').toUpperCase()}`,
        event_version: '1.0',
        create_time: stamp(),
        resource_type: 'dispute',
        event_type: eventType,
        summary: `A dispute was ${eventType.split('.').at(-1)?.toLowerCase()}`,
        resource: summary(held(id)),
        links: [],
      };
      const body = JSON.stringify(event);
      const transmissionId = randomUUID();
      const time = stamp();
      return {
        headers: {
          'paypal-auth-algo': 'SHA256withRSA',
          'paypal-cert-url': `${sandbox}/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270`,
          'paypal-transmission-id': transmissionId,
          'paypal-transmission-time': time,
          'paypal-transmission-sig': signatureOf(transmissionId, time, webhookId, body),
          'content-type': 'application/json',
        },
        body: Buffer.from(body),
      };
    },
    close: () => server.close(),
  };
}
