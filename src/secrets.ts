import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';
import { createWhole } from './files.js';

/** Where a sealed value is stored. It opens there and nowhere else: a value copied to another row does not. */
export interface SealedAt {
  table: string;
  column: string;
  /** The row's id. */
  row: string;
}

/** AES-GCM's full tag: a shorter one (GCM allows 4 bytes) would make forging a sealed value cheap. */
const tagBytes = 16;
const ivBytes = 12;

interface Parsed {
  /** `v1`: sealed before values were bound to their place; opened as before until `secrets reseal`. */
  version: 'v1' | 'v2';
  iv: Buffer;
  tag: Buffer;
  body: Buffer;
}

/**
 * Secrets this service must read back (processor credentials, webhook signing secrets, personal-data
 * requests' addresses, subjects and exports) are stored sealed with AES-256-GCM under a key derived from
 * APP_SECRET, each bound to its table, column and row as associated data; secrets it only compares (API
 * keys) are hashed instead (features/organisations/api-keys.ts). Personal data it must recognise but never
 * read back is held as keyed hashes (`keyedHash`).
 *
 * APP_SECRET can be replaced without losing what it sealed (docs/operations.md "On-call recipes"): with the old
 * value as APP_SECRET_PREVIOUS, values sealed under either open, new ones are sealed under the current one,
 * and `secrets reseal` seals the old ones again under it.
 */
export class SecretBox {
  readonly #appSecret: string;
  /** APP_SECRET, then APP_SECRET_PREVIOUS when set. */
  readonly #secrets: string[];
  /** The current key first: it alone seals. */
  readonly #keys: Buffer[];
  readonly #hashKeys = new Map<string, Buffer>();

  constructor(appSecret: string, previousSecret?: string) {
    this.#appSecret = appSecret;
    this.#secrets = [appSecret, ...(previousSecret === undefined ? [] : [previousSecret])];
    this.#keys = this.#secrets.map((secret) =>
      Buffer.from(hkdfSync('sha256', secret, 'rebuttal', 'secret-box v1', 32)),
    );
  }

  /**
   * HMAC-SHA-256 (hex) of `value` under a key derived from APP_SECRET for `purpose` alone: equal values
   * give equal hashes, so a record can be found again, but without APP_SECRET a hash cannot be tested
   * against guesses, and a hash made for one purpose says nothing about another.
   */
  keyedHash(purpose: string, value: string): string {
    return this.#hash(this.#appSecret, purpose, value);
  }

  /**
   * `keyedHash` under the current APP_SECRET and, while it is set, APP_SECRET_PREVIOUS: what finds a
   * record whose hash was made before the secret was replaced (a hash cannot be made again without its
   * value, so `secrets reseal` cannot bring it under the new secret).
   */
  keyedHashes(purpose: string, value: string): string[] {
    return this.#secrets.map((secret) => this.#hash(secret, purpose, value));
  }

  #hash(secret: string, purpose: string, value: string): string {
    const name = `${purpose}\u0000${secret === this.#appSecret ? 'current' : 'previous'}`;
    let key = this.#hashKeys.get(name);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', secret, 'rebuttal', purpose, 32));
      this.#hashKeys.set(name, key);
    }
    return createHmac('sha256', key).update(value, 'utf8').digest('hex');
  }

  seal(plain: string, at: SealedAt): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.#current, iv, { authTagLength: tagBytes });
    cipher.setAAD(associatedData(at));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'));
    return ['v2', ...parts].join('.');
  }

  /** The value sealed for `at`, under the current or the previous APP_SECRET; throws otherwise. */
  open(sealed: string, at: SealedAt): string {
    const parsed = parse(sealed);
    for (const key of this.#keys) {
      const plain = decrypt(parsed, key, at);
      if (plain !== null) return plain;
    }
    throw new Error('the sealed value does not open with this APP_SECRET (or APP_SECRET_PREVIOUS) here');
  }

  /**
   * The value sealed again in the current format under the current APP_SECRET, or null when it already is
   * (so resealing twice changes nothing). Throws when it does not open.
   */
  reseal(sealed: string, at: SealedAt): string | null {
    const parsed = parse(sealed);
    if (parsed.version === 'v2' && decrypt(parsed, this.#current, at) !== null) return null;
    return this.seal(this.open(sealed, at), at);
  }

  get #current(): Buffer {
    return this.#keys[0] as Buffer;
  }
}

function parse(sealed: string): Parsed {
  const [version, iv, tag, body, extra] = sealed.split('.');
  if ((version !== 'v1' && version !== 'v2') || !iv || !tag || body === undefined || extra !== undefined) {
    throw new Error('not a sealed secret');
  }
  const parsed = {
    version,
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    body: Buffer.from(body, 'base64url'),
  } as const;
  if (parsed.iv.length !== ivBytes || parsed.tag.length !== tagBytes) {
    throw new Error(`not a sealed secret: its tag must be ${tagBytes} bytes and its IV ${ivBytes}`);
  }
  return parsed;
}

/** The plain text, or null when the key or the place is not the one it was sealed with (or it was altered). */
function decrypt(parsed: Parsed, key: Buffer, at: SealedAt): string | null {
  const decipher = createDecipheriv('aes-256-gcm', key, parsed.iv, { authTagLength: tagBytes });
  decipher.setAuthTag(parsed.tag);
  if (parsed.version === 'v2') decipher.setAAD(associatedData(at));
  try {
    return Buffer.concat([decipher.update(parsed.body), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Unambiguous whatever the names hold: JSON of the three. */
const associatedData = (at: SealedAt) => Buffer.from(JSON.stringify([at.table, at.column, at.row]), 'utf8');

/**
 * APP_SECRET, or with the embedded database (one process on one machine) one generated once under
 * DATA_DIR. With DATABASE_URL it must be set: every process that reads the same sealed secrets needs the
 * same value, and web and workers on other machines would each generate their own.
 */
export async function loadAppSecret(
  config: Pick<Config, 'APP_SECRET' | 'DATA_DIR' | 'DATABASE_URL'>,
): Promise<string> {
  if (config.APP_SECRET) return config.APP_SECRET;
  if (config.DATABASE_URL) {
    throw new Error(
      'APP_SECRET is required with DATABASE_URL: the same value (32 characters or more) for every process',
    );
  }
  return (await generatedSecret(config.DATA_DIR, 'app-secret')).value;
}

/**
 * A random secret kept in DATA_DIR/<name> (readable by this user only), made on first use and the same
 * on every later start; `created` on the start that made it. Two processes starting at once agree: the
 * first to place the file wins. A file too short to be one of these is refused rather than trusted.
 */
export async function generatedSecret(
  dataDir: string,
  name: string,
): Promise<{ value: string; created: boolean }> {
  const file = join(dataDir, name);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const created = await createWhole(file, randomBytes(32).toString('base64url'));
  const value = (await readFile(file, 'utf8')).trim();
  if (value.length < 32) {
    throw new Error(`${file} does not hold a secret this service made (too short): restore it, or remove it`);
  }
  return { value, created };
}
