import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What every fake processor is built on: a real HTTP server on loopback that hands each request to the
 * processor's own handler, and that can be told to misbehave the way processors do, once or many times,
 * for the requests a test names:
 * - `latency`: answer late;
 * - `rate-limit`: answer 429 with Retry-After (in the processor's own error shape);
 * - `unavailable`: answer 503;
 * - `drop`: close the connection without handling the request;
 * - `drop-after`: handle the request (its effects stand), then close the connection before answering,
 *   as a reply lost on the way back.
 */

export interface FakeRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export type FaultKind = 'latency' | 'rate-limit' | 'unavailable' | 'drop' | 'drop-after';

export interface Fault {
  kind: FaultKind;
  /** How many matching requests it applies to. Default 1. */
  times?: number;
  /** Which requests it applies to. Default every one. */
  match?: (request: FakeRequest) => boolean;
  /** For `latency`, the delay; for `rate-limit`, the Retry-After in seconds (default 1). */
  value?: number;
}

export type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

/** The processor's own error body for a status the harness injects. */
export type ErrorShape = (status: number, message: string) => FakeReply;

export const jsonReply = (
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): FakeReply => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

export class FakeServer {
  readonly #handler: FakeHandler;
  readonly #errorShape: ErrorShape;
  readonly #server: Server;
  readonly #faults: (Fault & { left: number })[] = [];
  /** Every request received, in order: method and path only (tests assert what went over the wire). */
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers'] }[] = [];
  /** The requests handled whose answer `drop-after` lost: their effects stand, unknown to the caller. */
  readonly lostAnswers: FakeRequest[] = [];
  url = '';

  constructor(handler: FakeHandler, errorShape: ErrorShape) {
    this.#handler = handler;
    this.#errorShape = errorShape;
    this.#server = createServer((req, res) => {
      void this.#serve(req, res);
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  inject(fault: Fault): void {
    this.#faults.push({ ...fault, left: fault.times ?? 1 });
  }

  clearFaults(): void {
    this.#faults.length = 0;
  }

  /** Faults injected that have not yet met all their requests. */
  get pendingFaults(): number {
    return this.#faults.length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    this.requests.push({ method: request.method, path: request.path, headers: req.headers });
    const fault = this.#takeFault(request);
    if (fault?.kind === 'latency') await new Promise((resolve) => setTimeout(resolve, fault.value ?? 1000));
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    let reply: FakeReply;
    if (fault?.kind === 'rate-limit') {
      const shaped = this.#errorShape(429, 'Too many requests');
      reply = { ...shaped, headers: { ...shaped.headers, 'retry-after': String(fault.value ?? 1) } };
    } else if (fault?.kind === 'unavailable') {
      reply = this.#errorShape(503, 'Service unavailable');
    } else {
      try {
        reply = await this.#handler(request);
      } catch (error) {
        reply = this.#errorShape(500, error instanceof Error ? error.message : String(error));
      }
    }
    if (fault?.kind === 'drop-after') {
      this.lostAnswers.push(request);
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  }

  #takeFault(request: FakeRequest): Fault | undefined {
    const index = this.#faults.findIndex((fault) => fault.left > 0 && (fault.match?.(request) ?? true));
    const fault = this.#faults[index];
    if (!fault) return undefined;
    fault.left -= 1;
    if (fault.left === 0) this.#faults.splice(index, 1);
    return fault;
  }
}

/** HTTP Basic credentials of a request, or undefined. */
export function basicCredentials(request: FakeRequest): { user: string; password: string } | undefined {
  const header = request.headers.authorization;
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A multipart/form-data body split into its parts (fakes read uploads the way processors do). */
export function multipartParts(
  request: FakeRequest,
): { name: string; filename?: string; contentType?: string; data: Buffer }[] {
  const type = request.headers['content-type'] ?? '';
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  if (!boundary) return [];
  const marker = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: { name: string; filename?: string; contentType?: string; data: Buffer }[] = [];
  let at = request.body.indexOf(marker);
  while (at >= 0) {
    const start = at + marker.length;
    if (request.body.subarray(start, start + 2).toString() === '--') break;
    const next = request.body.indexOf(marker, start);
    if (next < 0) break;
    const part = request.body.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    const contentType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
    parts.push({
      name,
      ...(filename !== undefined && { filename }),
      ...(contentType !== undefined && { contentType }),
      data: part.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}
