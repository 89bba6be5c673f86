import {
  type Agent,
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  request as plainRequest,
  type RequestListener,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer, request as tlsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type postgres from 'postgres';
import { expect } from 'vitest';
import type { ApiResponse } from './api.js';
import { testTls } from './tls.js';

/** The error catalogue of docs/api.md, "Errors", restated from the contract (not imported from src). */
export const contractErrorStatus: Record<string, readonly number[]> = {
  authentication: [401],
  insecure_connection: [403],
  invalid_link: [403],
  dispute_not_found: [404],
  template_not_found: [400, 404],
  response_not_found: [404],
  webhook_endpoint_not_found: [404],
  event_not_found: [404],
  dispute_closed: [400],
  dispute_overdue: [400],
  dispute_submitted: [400],
  dispute_uneditable: [400],
  missing_template: [400],
  missing_fields: [400],
  invalid_fields: [400],
  invalid_products: [400],
  invalid_correspondence: [400],
  invalid_past_payments: [400],
  invalid_evidence_files: [400],
  invalid_file: [400],
  file_not_found: [404],
  alert_not_found: [404],
  invalid_request: [400],
  not_found: [404],
  method_not_allowed: [405],
  request_too_large: [413],
  rate_limited: [429],
  processor_error: [502],
  server_error: [500],
  unavailable: [503],
};

export interface ExpectedError {
  status: number;
  type: string;
  /** The `url` of the body: the request path without its query string. */
  url: string;
  livemode?: boolean;
}

/**
 * Asserts the error body of docs/api.md, "Errors" exactly: `{url, livemode, error: {status, message, type}}`,
 * JSON with charset, the status in the body equal to the HTTP status, and a type the catalogue knows.
 */
export function expectApiError(response: ApiResponse<unknown>, expected: ExpectedError): void {
  const summary = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, summary).toBe(expected.status);
  expect(String(response.headers['content-type']), summary).toMatch(/^application\/json; charset=utf-8$/i);
  expect(response.body, summary).toEqual({
    url: expected.url,
    livemode: expected.livemode ?? false,
    error: { status: expected.status, type: expected.type, message: expect.any(String) },
  });
  const { error } = response.body as { error: { message: string; type: string; status: number } };
  expect(error.message.length, summary).toBeGreaterThan(0);
  expect(contractErrorStatus[error.type], `type ${error.type} is in docs/api.md, "Errors"`).toContain(
    error.status,
  );
}

export type TableSnapshot = Record<string, Record<string, unknown>[]>;

/**
 * Every row of every table of the database, each table in a stable order (by the row's text form), so
 * that two snapshots are deep-equal exactly when no row was added, removed or changed.
 */
export async function snapshotTables(sql: postgres.Sql): Promise<TableSnapshot> {
  const tables = await sql<{ schema: string; name: string }[]>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by table_schema, table_name`;
  const snapshot: TableSnapshot = {};
  for (const { schema, name } of tables) {
    const table = `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
    const rows = await sql.unsafe(`select * from ${table} as row order by row::text`);
    snapshot[`${schema}.${name}`] = rows.map((row) => ({ ...row }));
  }
  return snapshot;
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Fails with `label` when `promise` takes longer than `ms`: a hung request is a failure, not a stall. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ListeningServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `app` on loopback, over TLS with the test certificate or over plain HTTP. */
export async function serve(app: RequestListener, options: { secure: boolean }): Promise<ListeningServer> {
  let server: Server;
  if (options.secure) {
    const tls = await testTls();
    server = createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  } else {
    server = createHttpServer(app);
  }
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RawRequest {
  secure: boolean;
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as one piece with its Content-Length, or piece by piece with chunked transfer encoding. */
  body?: Buffer | Buffer[];
  agent?: Agent;
}

/** An answer as it came: status, headers, body text and its bytes. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  bytes: Buffer;
}

/**
 * A request without the harness's conveniences (no Content-Length when the body is in chunks, headers as
 * given, certificates not checked), answering whatever came back.
 */
export function rawExchange(options: RawRequest): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (Buffer.isBuffer(options.body)) headers['content-length'] = String(options.body.length);
  if (Array.isArray(options.body)) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const req = (options.secure ? tlsRequest : plainRequest)(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path: options.path,
        headers,
        ...(options.agent && { agent: options.agent }),
        ...(options.secure && { rejectUnauthorized: false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: bytes.toString('utf8'), bytes });
        });
      },
    );
    // The server may answer (413, 400) and close before it has read everything: that is not our failure.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (Buffer.isBuffer(options.body)) req.write(options.body);
    if (Array.isArray(options.body)) for (const chunk of options.body) req.write(chunk);
    req.end();
  });
}

/** `rawExchange`, answering like `api.call`: it rejects when the answer is not JSON. */
export async function rawCall(options: RawRequest): Promise<ApiResponse> {
  const answer = await rawExchange(options);
  try {
    return { ...answer, body: JSON.parse(answer.text), bytes: Buffer.from(answer.text) };
  } catch {
    throw new Error(`${options.method} ${options.path} answered ${answer.status}, not JSON: ${answer.text}`);
  }
}

export const basicAuth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
