import { type Logger, pino } from 'pino';

/** Paths never written to a log line: credentials in headers and any secret-bearing property. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'headers.authorization',
  '*.apiKey',
  '*.api_key',
  '*.key',
  '*.secret',
  '*.password',
  '*.credentials',
  '*.test_key',
  '*.live_key',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: redactedPaths, censor: '[redacted]' }, base: { service: 'rebuttal' } },
    destination ?? process.stdout,
  );
}

export type { Logger };
