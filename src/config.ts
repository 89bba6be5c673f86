import { z } from 'zod';

/**
 * The one read of process.env. Every setting is documented in the README's configuration table with its
 * default; a missing or malformed value stops the process at boot rather than half-configuring it.
 */
const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .default('false')
  .transform((value) => value === 'true' || value === '1');
const port = z.coerce.number().int().min(0).max(65535);

const settings = z.object({
  DATABASE_URL: z
    .string({ error: 'DATABASE_URL is required: a postgres:// connection string' })
    .min(1, 'DATABASE_URL is required: a postgres:// connection string'),
  PORT: port.default(8443),
  HTTP_PORT: port.optional(),
  TLS_CERT_FILE: z.string().optional(),
  TLS_KEY_FILE: z.string().optional(),
  TRUST_PROXY: flag,
  DATA_DIR: z.string().default('./.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key the service writes (may carry a {hash tag} for Redis Cluster). */
  QUEUE_PREFIX: z.string().min(1).default('rebuttal'),
  /** Requests a second per API key, with bursts of twice that (API.md section 9). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  /** Seconds an API key lookup is cached in-process; rotation also invalidates it at once. */
  KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
});

export type Config = z.infer<typeof settings>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = settings.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
    });
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  if (Boolean(parsed.data.TLS_CERT_FILE) !== Boolean(parsed.data.TLS_KEY_FILE)) {
    throw new Error('invalid configuration: set both TLS_CERT_FILE and TLS_KEY_FILE, or neither');
  }
  return parsed.data;
}
