import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';
import { createWhole } from './files.js';

/**
 * Secrets this service must read back (processor credentials, webhook signing secrets) are stored
 * sealed with AES-256-GCM under a key derived from APP_SECRET; secrets it only compares (API keys) are
 * hashed instead (features/organisations/api-keys.ts). Personal data it must recognise but never read back is held
 * as keyed hashes (`keyedHash`).
 */
export class SecretBox {
  readonly #appSecret: string;
  readonly #key: Buffer;
  readonly #hashKeys = new Map<string, Buffer>();

  constructor(appSecret: string) {
    this.#appSecret = appSecret;
    this.#key = Buffer.from(hkdfSync('sha256', appSecret, 'rebuttal', 'secret-box v1', 32));
  }

  /**
   * HMAC-SHA-256 (hex) of `value` under a key derived from APP_SECRET for `purpose` alone: equal values
   * give equal hashes, so a record can be found again, but without APP_SECRET a hash cannot be tested
   * against guesses, and a hash made for one purpose says nothing about another.
   */
  keyedHash(purpose: string, value: string): string {
    let key = this.#hashKeys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.#appSecret, 'rebuttal', purpose, 32));
      this.#hashKeys.set(purpose, key);
    }
    return createHmac('sha256', key).update(value, 'utf8').digest('hex');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'));
    return ['v1', ...parts].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

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
