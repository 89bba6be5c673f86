import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { type Config, listenerOrigin } from '../config.js';

/**
 * What a link gives: a response document's PDF (`response_url`), or an evidence file of a response
 * package (docs/api.md, "Documents"). Each kind signs under a key of its own, so a link of one kind never
 * opens the other, whatever ids they share.
 */
export type LinkKind = 'document' | 'file';

const kinds: Record<LinkKind, { info: string; path: (id: string) => string }> = {
  document: { info: 'document-links v1', path: (id) => documentPath(id) },
  file: { info: 'file-links v1', path: (id) => fileLinkPath(id) },
};

/**
 * Signed, expiring links to response documents and the evidence files that go with them: anyone holding
 * one may download that one PDF or file until it expires, with no API key, the way a processor's upload
 * form or a reviewer's browser needs. The signature is an HMAC of the id and expiry under a key derived
 * from APP_SECRET for that kind of link alone, so every process sharing APP_SECRET can check links any
 * other issued.
 */
export class DocumentLinks {
  readonly #keys: Record<LinkKind, Buffer>;
  readonly #options: LinkOptions;
  #localOrigin: string;

  constructor(appSecret: string, options: LinkOptions) {
    const key = (kind: LinkKind) =>
      Buffer.from(hkdfSync('sha256', appSecret, 'rebuttal', kinds[kind].info, 32));
    this.#keys = { document: key('document'), file: key('file') };
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
    return this.#url('document', documentId, now);
  }

  /** The same for an evidence file (`file_…`), served by its own route. */
  fileUrl(fileId: string, now = new Date()): string {
    return this.#url('file', fileId, now);
  }

  /** Whether a document link's parameters are ours and still valid. Compared in constant time. */
  check(documentId: string, expires: unknown, signature: unknown, now = new Date()): LinkCheck {
    return this.#check('document', documentId, expires, signature, now);
  }

  /** Whether a file link's parameters are ours and still valid. */
  checkFile(fileId: string, expires: unknown, signature: unknown, now = new Date()): LinkCheck {
    return this.#check('file', fileId, expires, signature, now);
  }

  #url(kind: LinkKind, id: string, now: Date): string {
    const { publicUrl, ttlSeconds } = this.#options;
    const origin = publicUrl ?? this.#localOrigin;
    const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), signature: this.#sign(kind, id, expires) });
    return `${origin}${kinds[kind].path(id)}?${query}`;
  }

  #check(kind: LinkKind, id: string, expires: unknown, signature: unknown, now: Date): LinkCheck {
    if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) {
      return 'invalid';
    }
    const expected = Buffer.from(this.#sign(kind, id, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 < now.getTime() ? 'expired' : 'valid';
  }

  #sign(kind: LinkKind, id: string, expires: number): string {
    return createHmac('sha256', this.#keys[kind]).update(`${id}.${expires}`).digest('base64url');
  }
}

export type LinkCheck = 'valid' | 'expired' | 'invalid';

export interface LinkOptions {
  /** DOCUMENT_LINK_SECONDS, for both kinds. */
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
export const fileLinkPath = (id: string) => `/v1/files/${id}/download`;
