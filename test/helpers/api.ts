import { createServer as createHttpServer, request as plainRequest, type Server } from 'node:http';
import { Agent, createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import qs from 'qs';
import { createApp } from '../../src/api/app.js';
import { answerClientErrors } from '../../src/api/client-errors.js';
import type { AppDeps } from '../../src/api/endpoint.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { connectRedis } from '../../src/redis.js';
import { KeyResolver } from '../../src/services/authenticate.js';
import { DisputeObjectCache } from '../../src/services/dispute-object-cache.js';
import { type CreatedOrganisation, createOrganisation } from '../../src/services/organisations.js';
import { RateLimiter } from '../../src/services/rate-limit.js';
import { createInlineSubmitter } from '../../src/services/submissions.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { redisUrl, testRedisPrefix } from './services.js';
import { testTls } from './tls.js';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (every answer of this API is JSON). */
  body: T;
  text: string;
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

/**
 * The app as the server wires it, on a fresh database of this file's own, listening on loopback over
 * HTTPS (and plain HTTP, to test the refusal). Call `close()` in afterAll.
 */
export async function startTestApi(): Promise<TestApi> {
  const db = await createTestDatabase();
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const keys = new KeyResolver(db, 30_000);
  await keys.listen();
  const mock = new MockAdapter();
  const adapters = createAdapterRegistry({ mock });
  const redis = connectRedis(redisUrl, logger);
  const deps: AppDeps = {
    db: db.db,
    keys,
    // A generous limit, so no test but the rate-limit tests meets it; a key prefix of this file's own.
    rateLimiter: new RateLimiter(redis, testRedisPrefix(), 10_000, logger),
    adapters,
    submitter: createInlineSubmitter({ db: db.db, adapters, logger }),
    disputeObjects: new DisputeObjectCache(),
    logger,
    trustProxy: false,
  };
  const app = createApp(deps);
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
    call: (method, path, options = {}) => send(true, httpsPort, agent, method, path, options),
    callPlain: (method, path, options = {}) => send(false, httpPort, undefined, method, path, options),
    createOrg: (name = 'Test Org') => createOrganisation(db.db, { name }),
    async close() {
      agent.destroy();
      await Promise.all([closeServer(https), closeServer(http)]);
      await keys.close();
      redis.disconnect();
      await db.drop();
    },
  };
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
          const text = Buffer.concat(chunks).toString('utf8');
          let body: T;
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
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
