import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from './config.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where it came from, for the startup log line. */
  origin: string;
}

/**
 * The certificate the HTTPS listener serves: TLS_CERT_FILE/TLS_KEY_FILE when set, otherwise a self-signed
 * one for localhost, generated once under DATA_DIR/tls and reused on later starts (local use only).
 */
export async function loadTls(
  config: Pick<Config, 'TLS_CERT_FILE' | 'TLS_KEY_FILE' | 'DATA_DIR'>,
): Promise<TlsMaterial> {
  if (config.TLS_CERT_FILE && config.TLS_KEY_FILE) {
    return {
      cert: await readFile(config.TLS_CERT_FILE, 'utf8'),
      key: await readFile(config.TLS_KEY_FILE, 'utf8'),
      origin: config.TLS_CERT_FILE,
    };
  }
  const dir = join(config.DATA_DIR, 'tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 825 * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(keyFile, pems.private, { mode: 0o600 });
    await writeFile(certFile, pems.cert, { mode: 0o644 });
  }
  return {
    cert: await readFile(certFile, 'utf8'),
    key: await readFile(keyFile, 'utf8'),
    origin: `self-signed (${certFile})`,
  };
}
