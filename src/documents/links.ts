import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { type Config, listenerOrigin } from '../config.js';

/**
 * Signed, expiring links to response documents (`response_url`): anyone holding one may download that one
 * PDF until it expires, with no API key, the way a processor's upload form or a reviewer's browser needs.
 * The signature is an HMAC of the document id and expiry under a key derived from APP_SECRET for this
 * purpose alone, so every process sharing APP_SECRET can check links any other issued.
 */
export class DocumentLinks {
  readonly #key: Buffer;
  readonly #options: LinkOptions;
  #localOrigin: string;

  constructor(appSecret: string, options: LinkOptions) {
    this.#key = Buffer.from(hkdfSync('sha256', appSecret, 'rebuttal', 'document-links v1', 32));
    this.#options = options;
    this.#localOrigin = options.localOrigin;
  }

  /** The listener once it listens: with PORT 0 its port is known only then. */
  listeningAt(localOrigin: string): void {
    this.#localOrigin = localOrigin;
  }

  /**
   * An absolute link to the document, valid for the configured time from `now`. Its origin is PUBLIC_URL
   * when set, else the configured listener: never a request's Host header, which any client may forge to
   * have links handed out that point elsewhere.
   */
  url(documentId: string, now = new Date()): string {
    const { publicUrl, ttlSeconds } = this.#options;
    const origin = publicUrl ?? this.#localOrigin;
    const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
    const query = new URLSearchParams({
      expires: String(expires),
      signature: this.#sign(documentId, expires),
    });
    return `${origin}${documentPath(documentId)}?${query}`;
  }

  /** Whether a link's parameters are ours and still valid. Compared in constant time. */
  check(documentId: string, expires: unknown, signature: unknown, now = new Date()): LinkCheck {
    if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) {
      return 'invalid';
    }
    const expected = Buffer.from(this.#sign(documentId, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 < now.getTime() ? 'expired' : 'valid';
  }

  #sign(documentId: string, expires: number): string {
    return createHmac('sha256', this.#key).update(`${documentId}.${expires}`).digest('base64url');
  }
}

export type LinkCheck = 'valid' | 'expired' | 'invalid';

export interface LinkOptions {
  /** DOCUMENT_LINK_SECONDS. */
  ttlSeconds: number;
  /** PUBLIC_URL, without a trailing slash. */
  publicUrl?: string | undefined;
  /** The configured listener (config.ts `listenerOrigin`): where links point without PUBLIC_URL. */
  localOrigin: string;
}

export function linksFor(
  appSecret: string,
  config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT' | 'DOCUMENT_LINK_SECONDS'>,
): DocumentLinks {
  return new DocumentLinks(appSecret, {
    ttlSeconds: config.DOCUMENT_LINK_SECONDS,
    publicUrl: config.PUBLIC_URL,
    localOrigin: listenerOrigin(config, config.PORT),
  });
}

export const documentPath = (id: string) => `/v1/documents/${id}`;
