import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A value in the format sealed before values were bound to their row (`v1`: AES-256-GCM without associated
 * data), as stored values from then are: what src/secrets.ts must still open, and `secrets reseal` rebinds.
 */
export function sealedTheOldWay(appSecret: string, plain: string): string {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'rebuttal', 'secret-box v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))].join('.');
}
