import { join } from 'node:path';
import { type Config, isLoopback, listenerOrigin } from './config.js';
import type { RunningService } from './service.js';

/** The innermost cause's message: "database "x" does not exist", not drizzle's "Failed query: ...". */
export function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (!(current instanceof Error)) return String(current);
  const code = (current as { code?: unknown }).code;
  return current.message || (typeof code === 'string' ? code : current.name);
}

/** Who can reach the listeners (HOST): said at start, since loopback alone is the default. */
function reach(host: string | undefined): string {
  if (host === undefined) return 'on every interface (HOST)';
  return isLoopback(host)
    ? `on ${host} only: this machine alone reaches it (set HOST to serve others)`
    : `on ${host} (HOST)`;
}

/**
 * What `npm start` prints once it serves: where everything is, and how to make a first call. For people,
 * on stdout beside the JSON log lines; secrets only where this start made them (generated operator
 * password, a new demo organisation's keys), never ones the operator set.
 */
export function welcome(
  config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'DATA_DIR' | 'MOCK_DISPUTE_SECONDS' | 'TLS_CERT_FILE'>,
  service: Pick<RunningService, 'httpsPort' | 'database' | 'operators' | 'demo'>,
): string {
  const origin = config.PUBLIC_URL ?? listenerOrigin(config, service.httpsPort);
  const curl = config.TLS_CERT_FILE ? 'curl' : 'curl -k';
  const { operators, demo } = service;
  const lines = [
    '',
    `Rebuttal is running at ${origin}${config.TLS_CERT_FILE ? '' : ' (a self-signed certificate: curl -k)'}`,
    `  listening   ${reach(config.HOST)}`,
    `  database    ${service.database}`,
  ];
  if (operators) {
    const kept = join(config.DATA_DIR, 'admin-password');
    const password = !operators.generated
      ? 'password from ADMIN_PASSWORD'
      : operators.created
        ? `password ${operators.password} (generated, kept in ${kept})`
        : `password in ${kept}`;
    lines.push(
      `  Bull Board  ${origin}/admin/queues  user ${operators.user}, ${password}`,
      `  metrics     ${origin}/metrics  (the same credentials)`,
    );
  } else {
    lines.push('  Bull Board  off: set ADMIN_PASSWORD to serve it and /metrics');
  }
  if (demo) {
    const stream =
      config.MOCK_DISPUTE_SECONDS > 0
        ? `mirrors a new dispute every ${config.MOCK_DISPUTE_SECONDS} s`
        : 'keeps the disputes it started with (MOCK_DISPUTE_SECONDS=0)';
    lines.push(
      `  demo        organisation ${demo.org} (${demo.name}); its mock account '${demo.account}' (test mode) ${stream}`,
    );
    if (demo.keys) {
      lines.push(
        `              test key ${demo.keys.test_key}`,
        `              live key ${demo.keys.live_key}`,
        '              The keys are shown only now: copy them. Try:',
        '',
        `  export KEY=${demo.keys.test_key}`,
      );
    } else {
      lines.push(
        '              Its keys were shown when it was made; to get a new test key, stop the service and run',
        `              npm run cli -- key rotate --org ${demo.org} --mode test`,
        '',
        '  Try, with KEY set to the test key:',
        '',
      );
    }
    lines.push(`  ${curl} "${origin}/v1/disputes?limit=3" -u "$KEY:"`);
  }
  return `${lines.join('\n')}\n\n`;
}
