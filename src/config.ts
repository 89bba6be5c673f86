import { isIP } from 'node:net';
import { z } from 'zod';
import type { DocumentLimits } from './domain/document-size.js';
import { postgresUrl, sslModeOf, verifies } from './postgres-url.js';
import { type QueueName, queueNames } from './queue-names.js';

/**
 * The one read of process.env. Every setting is documented in the configuration table (docs/operations.md, "Configuration") with its
 * default; a missing or malformed value stops the process at boot rather than half-configuring it.
 */
/** A yes/no setting that may be left unset, when its default depends on another setting. */
const optionalFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) =>
    value === undefined || value === '' ? undefined : value === 'true' || value === '1',
  );
const flag = optionalFlag.transform((value) => value ?? false);
const port = z.coerce.number().int().min(0).max(65535);
const concurrency = z.coerce.number().int().min(1).max(1000);
/** SUBMISSION_CONCURRENCY's default; why 100: docs/operations.md, "Configuration". */
export const defaultSubmissionConcurrency = 100;
const workerList = z
  .string()
  .default('all')
  .transform((value, context) => {
    const names = value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (names.length === 1 && names[0] === 'all') return [...queueNames];
    if (names.length === 1 && names[0] === 'none') return [];
    const unknown = names.filter((name) => !(queueNames as readonly string[]).includes(name));
    if (unknown.length > 0 || names.length === 0) {
      context.addIssue({
        code: 'custom',
        message: `WORKERS: expected all, none, or some of ${queueNames.join(', ')}; got '${value}'`,
      });
      return z.NEVER;
    }
    return names as QueueName[];
  });

/** `host:port,host:port,…` (a name, an IPv4 address, or an IPv6 one in brackets): Redis nodes or sentinels. */
const nodeList = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      if (!value?.trim()) return undefined;
      const nodes = value.split(',').map((entry) => {
        const match = /^\s*(\[[0-9a-f:.]+\]|[^\s:[\]]+):(\d{1,5})\s*$/i.exec(entry);
        const port = Number(match?.[2]);
        return match?.[1] && port > 0 && port < 65536
          ? { host: match[1].replace(/^\[|\]$/g, ''), port }
          : undefined;
      });
      if (nodes.every((node) => node !== undefined)) return nodes as { host: string; port: number }[];
      context.addIssue({
        code: 'custom',
        message: `${name}: expected host:port,host:port,…; got '${value}'`,
      });
      return z.NEVER;
    });
const optionalText = z
  .string()
  .optional()
  .transform((value) => value || undefined);

/**
 * Which proxies' forwarding headers count (docs/operations.md, "A deployment"): `true` those on loopback
 * and private networks (api/app.ts), a number that many hops in front whoever they are, or a list of
 * addresses and CIDR blocks (and express's names `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = boolean | number | string[];
const proxyNames = ['loopback', 'linklocal', 'uniquelocal'];
const isProxyAddress = (entry: string) => {
  if (proxyNames.includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};
const trustProxy = z
  .string()
  .optional()
  .transform((value, context): TrustProxy => {
    const text = value?.trim() ?? '';
    if (['', 'false', '0'].includes(text)) return false;
    if (text === 'true') return true;
    if (/^\d{1,2}$/.test(text)) return Number(text);
    const entries = text.split(',').map((entry) => entry.trim());
    if (entries.every(isProxyAddress)) return entries;
    context.addIssue({
      code: 'custom',
      message: `TRUST_PROXY: expected true, false, a number of hops, or addresses and CIDR blocks separated by commas; got '${value}'`,
    });
    return z.NEVER;
  });

const settings = z.object({
  /** A Postgres server; unset, the embedded database under DATA_DIR/pg (one process only: src/db/embedded.ts). */
  DATABASE_URL: postgresUrl,
  /** The CA (PEM) that signed the Postgres server's certificate, for sslmode verify-ca and verify-full. */
  DATABASE_CA_FILE: optionalText,
  /**
   * The same database without a transaction-mode pooler in between (docs/operations.md "Behind a pooler"):
   * what needs a session of its own (LISTEN, migrations) goes here, and DATABASE_URL sends no named
   * prepared statements.
   */
  DATABASE_DIRECT_URL: postgresUrl,
  /**
   * The address the listeners bind to. Unset: loopback (127.0.0.1) without DATABASE_URL, so that the
   * zero-configuration start is reachable from this machine only; every interface with it.
   */
  HOST: optionalText,
  PORT: port.default(8443),
  HTTP_PORT: port.optional(),
  TLS_CERT_FILE: z.string().optional(),
  TLS_KEY_FILE: z.string().optional(),
  TRUST_PROXY: trustProxy,
  DATA_DIR: z.string().default('./.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** The seed nodes of a Redis Cluster; when set, it replaces REDIS_URL (src/redis-connection.ts). */
  REDIS_CLUSTER_NODES: nodeList('REDIS_CLUSTER_NODES'),
  /** Sentinels that name the master REDIS_SENTINEL_NAME; when set, they replace REDIS_URL. */
  REDIS_SENTINELS: nodeList('REDIS_SENTINELS'),
  REDIS_SENTINEL_NAME: optionalText,
  REDIS_SENTINEL_PASSWORD: optionalText,
  /** The user and password of cluster nodes and of a sentinel-managed master (REDIS_URL carries its own). */
  REDIS_USERNAME: optionalText,
  REDIS_PASSWORD: optionalText,
  /** TLS to cluster nodes, sentinels and their master (REDIS_URL says it with `rediss://`). */
  REDIS_TLS: flag,
  /** A private CA's PEM, trusted for every TLS connection to Redis. */
  REDIS_CA_FILE: optionalText,
  /** Prefix of every Redis key the service writes (may carry a {hash tag} for Redis Cluster). */
  QUEUE_PREFIX: z.string().min(1).default('rebuttal'),
  /** Requests a second per API key, with bursts of twice that (docs/api.md, "Limits"). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  /** Each full this many KiB of an answer's body counts as one more request against that limit. */
  RATE_LIMIT_RESPONSE_KIB: z.coerce.number().int().min(1).max(1_048_576).default(32),
  /** Personal data requests a minute per API key, beside the request limit: a retrieve reads the whole tenant. */
  RATE_LIMIT_PERSONAL_DATA_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Test disputes made a minute per API key, beside the request limit. */
  RATE_LIMIT_TEST_DISPUTES_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** Outcome statistics a minute per API key, beside the request limit: each reads a range of disputes whole. */
  RATE_LIMIT_STATS_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Refused API keys a minute per client address, before its key lookups are refused unasked. */
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** GET /readyz a second per client address, in bursts of twice that. */
  RATE_LIMIT_READYZ_PER_SECOND: z.coerce.number().positive().default(20),
  /** Seconds an API key lookup is cached in-process; rotation also invalidates it at once. */
  KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** Encrypts processor credentials and webhook secrets at rest; generated under DATA_DIR when unset. */
  APP_SECRET: z.string().min(32, 'APP_SECRET must be at least 32 characters').optional(),
  /** The APP_SECRET being replaced: what it sealed still opens; nothing new is sealed under it. */
  APP_SECRET_PREVIOUS: z.string().min(32, 'APP_SECRET_PREVIOUS must be at least 32 characters').optional(),
  /**
   * Operator credentials for Bull Board (/admin/queues) and /metrics. With the embedded database a password
   * is generated under DATA_DIR when unset (src/operators.ts); with DATABASE_URL both are off unless set.
   */
  ADMIN_USER: z.string().min(1).optional(),
  /** Guessing is slowed by the sign-in guard (src/operator-sign-in.ts), not made hopeless: that takes length. */
  ADMIN_PASSWORD: z.string().min(16, 'ADMIN_PASSWORD must be at least 16 characters').optional(),
  /** Bull Board shows the queues but takes no action (retry, remove, pause…): on-call may look, not act. */
  ADMIN_READONLY: flag,
  /**
   * The demo organisation with a mock processor account, made on the first start (src/demo.ts). Unset: on
   * with the embedded database, off with DATABASE_URL.
   */
  DEMO: optionalFlag,
  /** How often the demo's mock account mirrors a new dispute (its poll interval); 0: no new disputes. */
  MOCK_DISPUTE_SECONDS: z.coerce
    .number()
    .int()
    .max(86_400)
    .refine((seconds) => seconds === 0 || seconds >= 10, 'must be 0 (off) or at least 10')
    .default(30),
  /** Which workers a process runs: a comma-separated list of queue names, `all`, or `none`. */
  WORKERS: workerList,
  /** Processor calls wait on the network: a worker keeps many in flight, and their writes share batches. */
  SUBMISSION_CONCURRENCY: concurrency.default(defaultSubmissionConcurrency),
  WEBHOOK_CONCURRENCY: concurrency.default(50),
  MIRROR_CONCURRENCY: concurrency.default(4),
  /**
   * How long a worker holds a job (and a submission's lease) without renewing it before another worker
   * may take the job over: how soon work a killed worker held resumes elsewhere.
   */
  JOB_LOCK_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /** Seconds a stopping process gives in-flight jobs to finish before it closes anyway. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(25),
  /**
   * The first part of that grace, for a web process: /readyz answers 503 while it still serves, so that a
   * load balancer takes it out of rotation before it stops accepting (docs/operations.md "Rolling restart").
   */
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(3600).optional(),
  /**
   * How long a web process keeps an idle keep-alive connection open. Above a load balancer's own idle
   * timeout, so that the balancer, not the process, closes a connection it might be about to reuse.
   */
  HTTP_KEEP_ALIVE_SECONDS: z.coerce.number().int().min(1).max(3600).default(5),
  /** How long a submit request waits for the processor call before answering 202. */
  SUBMIT_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(15_000),
  DEADLINE_SWEEP_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** An open dispute this close to `due_by` gets one `dispute.due_soon` event. */
  DUE_SOON_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 60)
    .default(48),
  /**
   * The service's public origin (`https://disputes.example.com`), for the links it hands out (every
   * `response_url`). Unset: the configured listener (`listenerOrigin`), never a request's Host header,
   * which any client may forge.
   */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
  /** Threads that lay out evidence PDFs, off the event loop; unset: one a core, at most four. */
  RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** How long one render may hold its thread, counted from when a thread takes it. */
  RENDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** How long a signed link to a response document (`response_url`) or one of its files stays valid. */
  DOCUMENT_LINK_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(3600),
  /**
   * The largest response document a template and a dispute's evidence may make (docs/api.md, "Limits"):
   * refused when either is saved, so that no request can make a render cost what it likes.
   */
  DOCUMENT_MAX_CHARACTERS: z.coerce.number().int().min(1).max(10_000_000).default(200_000),
  DOCUMENT_MAX_PAGES: z.coerce.number().int().min(1).max(2000).default(60),
  /**
   * Allow webhook URLs on loopback and private addresses, and plain http (development and tests only).
   * Unset: on only while the zero-configuration start listens on loopback alone, where a newcomer's
   * receiver runs on the same machine and no one else holds a key; off once others can reach it (HOST)
   * and with DATABASE_URL.
   */
  WEBHOOK_ALLOW_PRIVATE: optionalFlag,
  /**
   * Webhook endpoints one organisation may have in each mode (docs/api.md, "Limits"): every event is
   * delivered to each, so this bounds what one event costs the shared webhook queue.
   */
  WEBHOOK_ENDPOINTS_MAX: z.coerce.number().int().min(1).max(1000).default(16),
  /**
   * The bytes of files one organisation may keep in each mode (docs/api.md, "Limits"): files live in
   * Postgres, so this bounds what one tenant's uploads cost the shared database.
   */
  FILES_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(5 * 1024 * 1024)
    .max(1024 ** 4)
    .default(1024 ** 3),
  /** Where the mock adapter sends its calls; unset, the mock processor runs in-process. */
  MOCK_PROCESSOR_URL: z.url({ protocol: /^https?$/ }).optional(),
});

/** Settings whose default depends on another: resolved once here, so every reader sees one value. */
const resolved = settings.transform((values, context) => {
  const HOST = values.HOST ?? (values.DATABASE_URL ? undefined : '127.0.0.1');
  // On a cluster every key must share a slot: the prefix carries a hash tag (`withHashTag`).
  const QUEUE_PREFIX = values.REDIS_CLUSTER_NODES ? withHashTag(values.QUEUE_PREFIX) : values.QUEUE_PREFIX;
  const grace = values.SHUTDOWN_GRACE_SECONDS;
  // The drain is the first part of the grace: what follows it answers the requests in flight.
  if (values.SHUTDOWN_DRAIN_SECONDS && values.SHUTDOWN_DRAIN_SECONDS >= grace) {
    context.addIssue({
      code: 'custom',
      path: ['SHUTDOWN_DRAIN_SECONDS'],
      message: `SHUTDOWN_DRAIN_SECONDS (${values.SHUTDOWN_DRAIN_SECONDS}) must be less than SHUTDOWN_GRACE_SECONDS (${grace}): the drain is part of the grace, and the rest answers the requests in flight`,
    });
  }
  return {
    ...values,
    HOST,
    QUEUE_PREFIX,
    /** Whether QUEUE_PREFIX was given a hash tag here, which the process says once at start. */
    queuePrefixTagged: QUEUE_PREFIX !== values.QUEUE_PREFIX,
    // No load balancer stands in front of the zero-configuration start: nothing to wait for there. A
    // short grace keeps its second half for the requests in flight.
    SHUTDOWN_DRAIN_SECONDS:
      values.SHUTDOWN_DRAIN_SECONDS ?? Math.min(values.DATABASE_URL ? 5 : 0, Math.floor(grace / 2)),
    WEBHOOK_ALLOW_PRIVATE: values.WEBHOOK_ALLOW_PRIVATE ?? (!values.DATABASE_URL && isLoopback(HOST)),
  };
});

/**
 * QUEUE_PREFIX as a cluster needs it: every key the service builds starts with it, so a hash tag there
 * keeps every multi-key command and script (BullMQ's among them) in one slot. A prefix with a tag of its
 * own is kept; one without is wrapped in braces.
 */
export function withHashTag(prefix: string): string {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix : `{${prefix}}`;
}

/** Whether an address to listen on is this machine's alone (undefined: every interface). */
export function isLoopback(host: string | undefined): boolean {
  if (host === undefined) return false;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === 'localhost';
}

/**
 * `https://<host>:<port>`: where this service's own listener is, for links when PUBLIC_URL is unset.
 * `localhost` stands for loopback and for every interface (the self-signed certificate names it).
 */
export function listenerOrigin(config: Pick<Config, 'HOST'>, port: number): string {
  const host =
    config.HOST === undefined || isLoopback(config.HOST) || isWildcard(config.HOST)
      ? 'localhost'
      : config.HOST;
  return `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

const isWildcard = (host: string) => host === '0.0.0.0' || host === '::';

export type Config = z.infer<typeof resolved>;

/** The document size limits as the features take them (domain/document-size.ts). */
export function documentLimits(
  config: Pick<Config, 'DOCUMENT_MAX_CHARACTERS' | 'DOCUMENT_MAX_PAGES'>,
): DocumentLimits {
  return { characters: config.DOCUMENT_MAX_CHARACTERS, pages: config.DOCUMENT_MAX_PAGES };
}

/** Every setting's name: the environment variables this service reads. */
export const settingNames = Object.keys(settings.shape);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = resolved.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
    });
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  if (!parsed.data.DATABASE_URL && parsed.data.WORKERS.length < queueNames.length) {
    // The embedded database is this process's alone: no other process could run the rest.
    throw new Error(
      "invalid configuration: WORKERS other than all needs DATABASE_URL (the embedded database is one process's)",
    );
  }
  if (parsed.data.DATABASE_DIRECT_URL && !parsed.data.DATABASE_URL) {
    throw new Error('invalid configuration: DATABASE_DIRECT_URL needs DATABASE_URL (the pooled address)');
  }
  const { DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_CA_FILE } = parsed.data;
  const unverified = Object.entries({ DATABASE_URL, DATABASE_DIRECT_URL }).find(
    ([, url]) => url && !verifies(sslModeOf(url)),
  );
  if (DATABASE_CA_FILE && (!DATABASE_URL || unverified)) {
    // A CA given for nothing that verifies would leave the connection unverified, or plain, unsaid.
    throw new Error(
      `invalid configuration: DATABASE_CA_FILE is set, but ${unverified?.[0] ?? 'DATABASE_URL'} has no sslmode that verifies the server: add sslmode=verify-full (or verify-ca) to it`,
    );
  }
  if (Boolean(parsed.data.TLS_CERT_FILE) !== Boolean(parsed.data.TLS_KEY_FILE)) {
    throw new Error('invalid configuration: set both TLS_CERT_FILE and TLS_KEY_FILE, or neither');
  }
  const redisProblem = redisContradiction(parsed.data);
  if (redisProblem) throw new Error(`invalid configuration: ${redisProblem}`);
  return parsed.data;
}

/** Redis settings that cannot all hold (docs/operations.md "Configuration"): said in one line. */
function redisContradiction(config: z.infer<typeof settings>): string | undefined {
  const cluster = config.REDIS_CLUSTER_NODES !== undefined;
  const sentinels = config.REDIS_SENTINELS !== undefined;
  if (cluster && sentinels) return 'set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both';
  if (sentinels && !config.REDIS_SENTINEL_NAME) {
    return 'REDIS_SENTINELS needs REDIS_SENTINEL_NAME, the name the sentinels monitor the master under';
  }
  if (!sentinels && (config.REDIS_SENTINEL_NAME || config.REDIS_SENTINEL_PASSWORD)) {
    return 'REDIS_SENTINEL_NAME and REDIS_SENTINEL_PASSWORD need REDIS_SENTINELS';
  }
  if (cluster || sentinels) {
    return config.REDIS_CA_FILE && !config.REDIS_TLS ? 'REDIS_CA_FILE needs REDIS_TLS=true' : undefined;
  }
  if (config.REDIS_USERNAME || config.REDIS_PASSWORD) {
    return 'REDIS_USERNAME and REDIS_PASSWORD are for REDIS_CLUSTER_NODES and REDIS_SENTINELS; put them in REDIS_URL (redis://user:password@host:port)';
  }
  if (config.REDIS_TLS) {
    return 'REDIS_TLS is for REDIS_CLUSTER_NODES and REDIS_SENTINELS; for REDIS_URL write rediss://';
  }
  if (config.REDIS_CA_FILE && !config.REDIS_URL.startsWith('rediss://')) {
    return 'REDIS_CA_FILE needs TLS: a rediss:// REDIS_URL, or REDIS_TLS=true with cluster nodes or sentinels';
  }
  return undefined;
}
