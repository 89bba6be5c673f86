import { createServer as createHttpServer, request as plainRequest, type Server } from 'node:http';
import { Agent, createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import qs from 'qs';
import { boardFor } from '../../src/admin/board.js';
import { createApp } from '../../src/api/app.js';
import { answerClientErrors } from '../../src/api/client-errors.js';
import type { AppDeps } from '../../src/api/endpoint.js';
import { composeProcess } from '../../src/composition.js';
import { type Config, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import {
  type CreatedOrganisation,
  createOrganisation,
} from '../../src/features/organisations/organisations.js';
import type { Queues } from '../../src/jobs/catalog.js';
import type { EngineDeps } from '../../src/jobs/workers/deps.js';
import { type RunningWorkers, startWorkers } from '../../src/jobs/workers/engine.js';
import type { Logger } from '../../src/logger.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import type { QueueName } from '../../src/queue-names.js';
import { redisTargetOf } from '../../src/redis-connection.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { dropKeys, redisUrl, testRedisPrefix } from './services.js';
import { testTls } from './tls.js';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (every answer of this API is JSON). */
  body: T;
  text: string;
  /** The body's bytes, for answers that are not text (a PDF). */
  bytes: Buffer;
}

export interface CallOptions {
  /** The API key; sent as HTTP Basic user with an empty password. */
  key?: string;
  json?: unknown;
  /** An object encoded with qs brackets, or a ready-made form string. */
  form?: Record<string, unknown> | string;
  /** Raw bytes with the content type given in `headers`. */
  raw?: Buffer | string;
  query?: Record<string, unknown> | string;
  headers?: Record<string, string>;
}

export interface TestApi {
  db: TestDatabase;
  mock: MockAdapter;
  deps: AppDeps;
  /** The job engine as the worker process wires it, on this file's own queue prefix. */
  engine: EngineDeps;
  queues: Queues;
  workers: RunningWorkers;
  config: Config;
  /** `https://127.0.0.1:<port>`: where the API listens. */
  origin: string;
  /** Calls the API over HTTPS on loopback. */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: CallOptions,
  ): Promise<ApiResponse<T>>;
  /** Calls the plain HTTP listener, which must refuse. */
  callPlain(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  createOrg(name?: string): Promise<CreatedOrganisation>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  /** Workers to run in this process (default all); tests of queued work start with none and add them. */
  workers?: readonly QueueName[];
  /** Settings over the test defaults (as environment variables, the way an operator sets them). */
  env?: Record<string, string>;
  mock?: MockAdapter;
  /**
   * Where the service reaches its database, from the test database's URL (a proxy in front of it); the
   * test's own helpers (`db`) keep the direct connection.
   */
  databaseUrl?: (url: string) => string;
  /** With `databaseUrl` (a pooler): DATABASE_DIRECT_URL is the test database's own URL. */
  directDatabase?: boolean;
  /** Where the service logs (default silent, or TEST_LOG_LEVEL). */
  logger?: Logger;
  /** A migrated database of the test's own (on a server it started) instead of a clone of the template. */
  database?: () => Promise<TestDatabase>;
}

/**
 * The app and the job engine as the service wires them, on a fresh database and a queue prefix of this
 * file's own, listening on loopback over HTTPS (and plain HTTP, to test the refusal). Call `close()` in
 * afterAll.
 */
export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const db = await (options.database ?? createTestDatabase)();
  const servedUrl = options.databaseUrl?.(db.url) ?? db.url;
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const prefix = testRedisPrefix();
  const config = loadConfig({
    DATABASE_URL: servedUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    APP_SECRET: 'test-app-secret-of-at-least-32-characters',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Quick takeover of a killed worker's jobs; sweeps only when a test asks for one.
    JOB_LOCK_SECONDS: '5',
    DEADLINE_SWEEP_SECONDS: '3600',
    SHUTDOWN_GRACE_SECONDS: '5',
    // Generous limits, so no test but the rate-limit tests meets them.
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_PERSONAL_DATA_PER_MINUTE: '100000',
    RATE_LIMIT_TEST_DISPUTES_PER_MINUTE: '100000',
    RATE_LIMIT_STATS_PER_MINUTE: '100000',
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '100000',
    RATE_LIMIT_READYZ_PER_SECOND: '10000',
    ...(options.directDatabase && { DATABASE_DIRECT_URL: db.url }),
    ...options.env,
  });
  // Elsewhere, opened as the service opens it (a pooler in between is probed for: src/db/pooler.ts).
  const served = servedUrl === db.url ? db : await openDatabase(config, { max: 5 });
  const mock = options.mock ?? new MockAdapter();
  const system = await composeProcess(config, logger, { database: served, mock });
  const { deps, redis } = await system.openApi();
  const { queues, engine } = system;
  await queues.events('submission').waitUntilReady();
  const workers = await startWorkers(engine, options.workers ?? config.WORKERS);
  const app = createApp(deps, { admin: boardFor(config, queues, redis, logger) });
  const tls = await testTls();
  const https = createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  const http = createHttpServer(app);
  answerClientErrors(https);
  answerClientErrors(http);
  const httpsPort = await listen(https);
  const httpPort = await listen(http);
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

  return {
    db,
    mock,
    deps,
    engine,
    queues,
    workers,
    config,
    origin: `https://127.0.0.1:${httpsPort}`,
    call: (method, path, options = {}) => send(true, httpsPort, agent, method, path, options),
    callPlain: (method, path, options = {}) => send(false, httpPort, undefined, method, path, options),
    createOrg: (name = 'Test Org') => createOrganisation(db.db, { name }),
    async close() {
      agent.destroy();
      await Promise.all([closeServer(https), closeServer(http), workers.close(1000)]);
      await system.close();
      await dropKeys(redisTargetOf(config), config.QUEUE_PREFIX);
      if (served !== db) await served.close();
      await db.drop();
    },
  };
}

/** Calls a service process's HTTPS listener on loopback (its self-signed certificate accepted). */
export function callPort<T = Record<string, unknown>>(
  port: number,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  return send(true, port, undefined, method, path, options);
}

function send<T>(
  secure: boolean,
  port: number,
  agent: Agent | undefined,
  method: string,
  path: string,
  options: CallOptions,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: Buffer | undefined;
  if (options.json !== undefined) {
    payload = Buffer.from(JSON.stringify(options.json));
    headers['content-type'] ??= 'application/json';
  } else if (options.form !== undefined) {
    payload = Buffer.from(typeof options.form === 'string' ? options.form : qs.stringify(options.form));
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (options.raw !== undefined) {
    payload = Buffer.from(options.raw);
  }
  if (payload) headers['content-length'] = String(payload.length);
  if (options.key !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${options.key}:`).toString('base64')}`;
  const query =
    typeof options.query === 'string' ? options.query : options.query ? qs.stringify(options.query) : '';
  const fullPath = query ? `${path}?${query}` : path;

  return new Promise((resolve, reject) => {
    const req = (secure ? request : plainRequest)(
      {
        host: '127.0.0.1',
        port,
        method,
        path: fullPath,
        headers,
        ...(secure && { agent, rejectUnauthorized: false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let body: T;
          // A processor hook answers what its processor expects (Adyen: `[accepted]` as text); a preview
          // answers a PDF, the statistics CSV when asked.
          const type = res.headers['content-type'] ?? '';
          if (res.statusCode === 200 && /^(text\/plain|text\/csv|application\/pdf)/.test(type)) {
            resolve({ status: 200, headers: res.headers, body: {} as T, text, bytes });
            return;
          }
          try {
            body = JSON.parse(text) as T;
          } catch {
            reject(
              new Error(
                `${method} ${path} answered ${res.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`,
              ),
            );
            return;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, bytes });
        });
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
