import { z } from 'zod';

/**
 * What a Postgres URL says about TLS (docs/operations.md "TLS to Postgres"), read by config.ts to refuse
 * what cannot work and by src/db/tls.ts to connect as it says.
 */

/** libpq's sslmode values, as a Postgres URL may give them (src/db/tls.ts: what each does). */
const sslModes = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof sslModes)[number];

/** The query parameters of a Postgres URL (postgres-js also takes URLs `URL` cannot parse: several hosts). */
function urlParameters(url: string): URLSearchParams {
  const [beforeFragment = ''] = url.split('#');
  const at = beforeFragment.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : beforeFragment.slice(at + 1));
}

/** The sslmode a Postgres URL asks for; without one, no TLS (postgres-js's default, not libpq's `prefer`). */
export function sslModeOf(url: string): SslMode {
  return (urlParameters(url).get('sslmode') ?? 'disable') as SslMode;
}

/**
 * A Postgres server's URL. Its sslmode must be one of libpq's; the other TLS parameters (`sslrootcert`,
 * postgres-js's `ssl`…) are refused rather than sent to the server as settings or half-read: the CA is
 * DATABASE_CA_FILE. The message never shows the URL, which may hold a password.
 */
export const postgresUrl = z
  .string()
  .optional()
  .transform((value, context) => {
    if (!value) return undefined;
    const parameters = urlParameters(value);
    const mode = parameters.get('sslmode');
    if (mode !== null && !(sslModes as readonly string[]).includes(mode)) {
      context.addIssue({
        code: 'custom',
        message: `sslmode must be one of ${sslModes.join(', ')}; got '${mode}'`,
      });
    }
    const refused = [...parameters.keys()].find(
      (name) => name.startsWith('ssl') && name !== 'sslmode' && name !== 'sslnegotiation',
    );
    if (refused) {
      context.addIssue({
        code: 'custom',
        message: `the parameter ${refused} is not taken: give sslmode (require, verify-ca or verify-full) in the URL and a private CA in DATABASE_CA_FILE`,
      });
    }
    return value;
  });

/** Whether a mode checks the server's certificate once a CA is given (`require` does, as in libpq). */
export const verifies = (mode: SslMode) =>
  mode === 'require' || mode === 'verify-ca' || mode === 'verify-full';
