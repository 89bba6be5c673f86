import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { type PostgresTls, tlsOptionsFor } from '../../src/db/tls.js';

/**
 * The `ssl` option postgres-js is given for each sslmode (docs/operations.md "TLS to Postgres"): libpq's
 * meaning, whatever postgres-js would make of the URL itself. The connections themselves are tested on a
 * Postgres with TLS on (test/integration/postgres-tls.test.ts).
 */
const ca = '-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----\n';
const url = (query: string, hosts = 'db.internal:5432') => `postgres://app:pw@${hosts}/rebuttal${query}`;

/** A certificate as Node hands it to checkServerIdentity, for db.internal and 10.0.0.5. */
const certificate = {
  subject: { CN: 'db.internal' },
  subjectaltname: 'DNS:db.internal, IP Address:10.0.0.5',
} as unknown as PeerCertificate;

function identity(tls: PostgresTls): (name: string) => string | undefined {
  if (typeof tls !== 'object' || !tls.checkServerIdentity) throw new Error(`no identity check in ${tls}`);
  const check = tls.checkServerIdentity;
  return (name) => check(name, certificate)?.message;
}

describe('tlsOptionsFor', () => {
  it.each([
    ['', false],
    ['?sslmode=disable', false],
    ['?sslmode=allow', 'prefer'],
    ['?sslmode=prefer', 'prefer'],
    ['?sslmode=require', { rejectUnauthorized: false }],
  ])('%s: %j', (query, expected) => {
    expect(tlsOptionsFor(url(query), undefined)).toEqual(expected);
  });

  it('verify-ca and require with a CA verify the chain and not the host name', () => {
    for (const query of ['?sslmode=verify-ca', '?sslmode=require']) {
      const tls = tlsOptionsFor(url(query, 'elsewhere:5432'), ca);
      expect(tls).toMatchObject({ rejectUnauthorized: true, ca });
      expect(identity(tls)('elsewhere')).toBeUndefined();
    }
    expect(tlsOptionsFor(url('?sslmode=verify-ca'), undefined)).toMatchObject({
      rejectUnauthorized: true,
      ca: undefined,
    });
  });

  it('verify-full checks the certificate against the host in the URL, an IP address too', () => {
    const byName = tlsOptionsFor(url('?sslmode=verify-full'), ca);
    expect(byName).toMatchObject({ rejectUnauthorized: true, ca });
    expect(identity(byName)('whatever Node thinks')).toBeUndefined();
    // postgres-js gives Node no name for an address, and Node then checks `localhost`.
    expect(
      identity(tlsOptionsFor(url('?sslmode=verify-full', '10.0.0.5:5432'), ca))('localhost'),
    ).toBeUndefined();
    expect(identity(tlsOptionsFor(url('?sslmode=verify-full', '10.0.0.6:5432'), ca))('localhost')).toBe(
      "Hostname/IP does not match certificate's altnames: IP: 10.0.0.6 is not in the cert's list: 10.0.0.5",
    );
    expect(identity(tlsOptionsFor(url('?sslmode=verify-full', 'other.internal'), ca))('other.internal')).toBe(
      "Hostname/IP does not match certificate's altnames: Host: other.internal. is not in the cert's altnames: DNS:db.internal, IP Address:10.0.0.5",
    );
    // With several hosts, a certificate for any of them.
    const several = tlsOptionsFor(url('?sslmode=verify-full', 'standby.internal:5432,db.internal:5432'), ca);
    expect(identity(several)('localhost')).toBeUndefined();
  });
});
