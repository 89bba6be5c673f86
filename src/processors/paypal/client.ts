import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { HttpAnswer, HttpCall, ProcessorHttp } from '../http.js';
import { ProcessorError } from '../types.js';

/**
 * Calls to PayPal's REST API (PaypalClient), and the tokens they carry (PaypalTokens): PayPal's OAuth 2.0
 * client-credentials tokens (https://developer.paypal.com/api/rest/authentication/):
 * `POST /v1/oauth2/token` with HTTP Basic `client_id:client_secret` and `grant_type=client_credentials`
 * answers a Bearer token valid for `expires_in` seconds. PayPal asks callers to cache tokens rather than
 * fetch one per call, so tokens are kept per connected account until shortly before they expire, and a
 * token PayPal refuses (401) is dropped and replaced once.
 */

const tokenSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().positive(),
});

export interface ClientCredentials {
  client_id: string;
  client_secret: string;
}

interface CachedToken {
  /** Which credentials and host the token is for: reconnecting an account with new ones replaces it. */
  fingerprint: string;
  token: Promise<{ value: string; expiresAt: number }>;
}

/** Renew this long before PayPal's expiry (half the lifetime for short-lived tokens). */
const renewBeforeMs = 5 * 60_000;

export class PaypalTokens {
  /** By connected account uid: one entry per account, whatever its credentials were over time. */
  readonly #cache = new Map<string, CachedToken>();

  /** A valid token for the account, fetched at most once at a time. */
  async token(
    http: ProcessorHttp,
    account: string,
    credentials: ClientCredentials,
    host: string,
  ): Promise<string> {
    const fingerprint = fingerprintOf(host, credentials);
    const cached = this.#cache.get(account);
    if (cached && cached.fingerprint === fingerprint) {
      const token = await cached.token.catch(() => undefined);
      if (token && token.expiresAt > Date.now()) return token.value;
      // Another call may have replaced the entry while this one waited: use its token.
      if (this.#cache.get(account) !== cached) return this.token(http, account, credentials, host);
    }
    const entry: CachedToken = { fingerprint, token: fetchToken(http, credentials) };
    this.#cache.set(account, entry);
    try {
      return (await entry.token).value;
    } catch (error) {
      if (this.#cache.get(account) === entry) this.#cache.delete(account);
      throw error;
    }
  }

  /** Forgets a token PayPal refused, unless a newer one has replaced it meanwhile. */
  async drop(account: string, value: string): Promise<void> {
    const cached = this.#cache.get(account);
    const token = await cached?.token.catch(() => undefined);
    if (cached && token?.value === value && this.#cache.get(account) === cached) this.#cache.delete(account);
  }
}

async function fetchToken(http: ProcessorHttp, credentials: ClientCredentials) {
  const basic = Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64');
  const started = Date.now();
  const answer = await http.json(
    {
      method: 'POST',
      path: 'v1/oauth2/token',
      headers: { authorization: `Basic ${basic}` },
      form: { grant_type: 'client_credentials' },
      // Asking for a token again changes nothing at PayPal.
      idempotent: true,
    },
    tokenSchema,
  );
  const lifetimeMs = answer.expires_in * 1000;
  return {
    value: answer.access_token,
    expiresAt: started + lifetimeMs - Math.min(renewBeforeMs, lifetimeMs / 2),
  };
}

function fingerprintOf(host: string, credentials: ClientCredentials): string {
  return createHash('sha256')
    .update(JSON.stringify([host, credentials.client_id, credentials.client_secret]))
    .digest('hex');
}

/**
 * Calls to PayPal's REST API for one account: each carries the account's Bearer token; a 401 (a token
 * PayPal revoked or expired early) drops it and sends the call once more with a fresh one.
 */
export class PaypalClient {
  constructor(
    readonly http: ProcessorHttp,
    readonly tokens: PaypalTokens,
    readonly account: string,
    readonly credentials: ClientCredentials,
    /** The host the account's calls go to: a token is good for the host that issued it only. */
    readonly host: string,
  ) {}

  async send(call: HttpCall): Promise<HttpAnswer> {
    const token = await this.#token();
    try {
      return await this.http.send(withBearer(call, token));
    } catch (error) {
      if (!(error instanceof ProcessorError) || error.status !== 401) throw error;
      await this.tokens.drop(this.account, token);
      const fresh = await this.#token();
      return this.http.send(withBearer(call, fresh));
    }
  }

  async json<Schema extends z.ZodType>(call: HttpCall, schema: Schema): Promise<z.infer<Schema>> {
    return this.http.read(await this.send(call), schema, (body) => JSON.parse(body));
  }

  #token(): Promise<string> {
    return this.tokens.token(this.http, this.account, this.credentials, this.host);
  }
}

const withBearer = (call: HttpCall, token: string): HttpCall => ({
  ...call,
  headers: { ...call.headers, authorization: `Bearer ${token}` },
});
