import { readFile } from 'node:fs/promises';
import { type ConnectionOptions, checkServerIdentity } from 'node:tls';
import { certificateFailures } from '../certificate-failures.js';
import { sslModeOf } from '../postgres-url.js';

/**
 * TLS to a Postgres server (docs/operations.md "TLS to Postgres"): the URL's sslmode with libpq's meaning,
 * and DATABASE_CA_FILE for a private CA. postgres-js reads sslmode itself, but not as libpq does: its
 * `verify-ca` checks the host name too, and for a host given as an IP address it checks the certificate
 * against `localhost`. So the service builds the `ssl` option itself, the same for every URL it connects to.
 */

/** postgres-js's `ssl` option: none, TLS where the server offers it, or TLS with these settings. */
export type PostgresTls = false | 'prefer' | ConnectionOptions;

export function tlsOptionsFor(url: string, ca: string | undefined): PostgresTls {
  switch (sslModeOf(url)) {
    case 'disable':
      return false;
    // libpq's `allow` tries without TLS first: here TLS is used wherever offered, as with `prefer`.
    case 'allow':
    case 'prefer':
      return 'prefer';
    // Encrypted, unverified; with a CA file given, libpq verifies the chain (as verify-ca), and so does this.
    case 'require':
      return ca ? chainOnly(ca) : { rejectUnauthorized: false };
    case 'verify-ca':
      return chainOnly(ca);
    case 'verify-full': {
      const hosts = hostsOf(url);
      return {
        rejectUnauthorized: true,
        ca,
        // The certificate must name the host the URL gives (any of them, with several).
        checkServerIdentity: (name, cert) => {
          const problems = (hosts.length > 0 ? hosts : [name]).map((host) => checkServerIdentity(host, cert));
          return problems.includes(undefined) ? undefined : problems[0];
        },
      };
    }
  }
}

/** Without `ca`, the CAs Node trusts (the public ones), as libpq's `sslrootcert=system`. */
const chainOnly = (ca: string | undefined): ConnectionOptions => ({
  rejectUnauthorized: true,
  ca,
  checkServerIdentity: () => undefined,
});

/** The hosts of a Postgres URL (`postgres://u:p@h1:5432,h2/db`), as postgres-js splits them. */
function hostsOf(url: string): string[] {
  const authority = url.slice(url.indexOf('://') + 3).split(/[?/#]/)[0] ?? '';
  const hostList = decodeURIComponent(authority.slice(authority.lastIndexOf('@') + 1));
  return hostList
    .split(',')
    .map((entry) =>
      entry.startsWith('[') ? entry.slice(1, entry.indexOf(']')) : (entry.split(':')[0] ?? ''),
    )
    .filter(Boolean);
}

/** The CA certificate(s) of DATABASE_CA_FILE, read once at start. */
export async function readCaFile(file: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Error(`DATABASE_CA_FILE: cannot read ${file} (${typeof code === 'string' ? code : error})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(`DATABASE_CA_FILE: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

export interface ConnectionSetting {
  /** The setting whose URL this is (DATABASE_URL…), named in the line. */
  setting: string;
  url: string;
  /** Where, for the line: host, port and database, never credentials. */
  describe: string;
  caFile: string | undefined;
}

/**
 * The one line that says what to fix when a connection failed for TLS (a certificate not trusted or not
 * for this host, a server without TLS, a server that refuses connections without it); undefined for
 * any other failure.
 */
export function tlsProblem(error: unknown, where: ConnectionSetting): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const { setting, caFile } = where;
  const at = `${setting} (${where.describe})`;
  // The same reading of Node's codes as for Redis and webhooks (src/certificate-failures.ts).
  const failure = typeof code === 'string' ? certificateFailures[code] : undefined;
  if (failure === 'TLS certificate not trusted') {
    return caFile
      ? `${at}: the server's certificate is not signed by the CA in DATABASE_CA_FILE (${error.message}): set DATABASE_CA_FILE to the CA certificate that signed it`
      : `${at}: the server's certificate is not signed by a CA this machine trusts (${error.message}): set DATABASE_CA_FILE to the CA certificate (PEM) that signed it`;
  }
  if (failure === 'TLS certificate is for another host') {
    return `${at}: the server's certificate is not for the host in the URL (${error.message}): connect by a name the certificate gives, or use sslmode=verify-ca to verify the chain alone`;
  }
  if (failure === 'TLS certificate expired') {
    return `${at}: the server's certificate has expired (${error.message}): the server needs a current certificate`;
  }
  // The server answered that it has no TLS, and then took the TLS greeting for garbage and hung up.
  if (
    code === 'ECONNRESET' &&
    sslModeOf(where.url) !== 'disable' &&
    /before secure TLS/.test(error.message)
  ) {
    return `${at}: the server closed the connection before TLS was set up: it does not take TLS connections; turn TLS on at the server (ssl = on), or connect to one that has it`;
  }
  // pg_hba.conf has only `hostssl` lines for this client.
  if (code === '28000' && /no encryption/.test(error.message)) {
    return `${at}: the server refuses connections without TLS (${error.message}): add sslmode=verify-full to ${setting} (with DATABASE_CA_FILE for a private CA)`;
  }
  return undefined;
}
