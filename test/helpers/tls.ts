import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTls, type TlsMaterial } from '../../src/tls.js';

let material: Promise<TlsMaterial> | undefined;

/** A self-signed certificate made the way the service makes its own, once per test file. */
export function testTls(): Promise<TlsMaterial> {
  material ??= loadTls({ DATA_DIR: mkdtempSync(join(tmpdir(), 'rebuttal-tls-')) });
  return material;
}

export interface TestAuthority {
  /** A private certificate authority's certificate (PEM), as an operator gives it in a CA setting. */
  caFile: string;
  /** A server certificate for 127.0.0.1 and localhost that the authority signed, and its key. */
  certFile: string;
  keyFile: string;
}

let authority: TestAuthority | undefined;

/**
 * A private certificate authority and a server certificate it signed, made with openssl once per test
 * file: what a managed store with its own CA presents. Short-lived EC keys, made in milliseconds.
 */
export function testAuthority(): TestAuthority {
  if (authority) return authority;
  const dir = mkdtempSync(join(tmpdir(), 'rebuttal-ca-'));
  const file = (name: string) => join(dir, name);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    ...key,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Rebuttal test CA',
  );
  openssl('req', ...key, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(
    file('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  authority = { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
  return authority;
}
