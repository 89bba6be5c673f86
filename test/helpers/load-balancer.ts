import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';

/** One request as a client saw it: the port it went to, when, and its answer or the error instead. */
export interface Outcome {
  port: number;
  method: string;
  path: string;
  sentAt: number;
  status?: number;
  headers?: IncomingHttpHeaders;
  body?: Record<string, unknown>;
  /** The connection failed (refused, reset) or no answer came within the time limit. */
  error?: string;
}

/** A port going in or out of rotation. */
export interface RotationChange {
  port: number;
  at: number;
  inRotation: boolean;
}

export interface CallOptions {
  key: string;
  json?: unknown;
}

/** Every request and readiness probe of a test is bounded: a hang is a failure, not a stuck test. */
const requestTimeoutMs = 15_000;
/**
 * Keep-alive connections as a balancer keeps them. A connection idle for the web process's keep-alive
 * timeout (Node's, 5 s) is closed by the server, and one reused at that moment is reset: a client lets
 * its idle connections go sooner (docs/operations.md "Rolling restart").
 */
export const keepAliveAgent = () => new Agent({ keepAlive: true, timeout: 2000, rejectUnauthorized: false });

/**
 * An HTTPS request over keep-alive `agent`, resolving with what happened (never rejecting): unlike the
 * other helpers, a reset or refused connection is an outcome to count here.
 */
export function exchange(
  port: number,
  agent: Agent,
  method: string,
  path: string,
  options?: CallOptions,
): Promise<Outcome> {
  const sentAt = Date.now();
  const body = options?.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json));
  const headers: Record<string, string> = {};
  if (options) headers.authorization = `Basic ${Buffer.from(`${options.key}:`).toString('base64')}`;
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers, agent, timeout: requestTimeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => resolve({ port, method, path, sentAt, error: error.message }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> | undefined;
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { unparsed: text };
          }
          resolve({ port, method, path, sentAt, status: res.statusCode, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${requestTimeoutMs} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ port, method, path, sentAt, error: error.code ?? error.message }),
    );
    req.end(body);
  });
}

/**
 * A load balancer as the tests play one, in front of web processes on fixed ports: it probes `GET
 * /readyz` on each every `intervalMs` over a new connection, takes a port out of rotation at its first
 * answer other than 200 (or no answer) and back at its first 200, and sends each request to the next
 * port in rotation over a keep-alive connection of its own, as a proxy does.
 */
export class LoadBalancer {
  readonly changes: RotationChange[] = [];
  readonly #rotation = new Set<number>();
  readonly #agents = new Map<number, Agent>();
  readonly #probes = new Agent({ keepAlive: false, rejectUnauthorized: false });
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    readonly ports: readonly number[],
    readonly intervalMs: number,
  ) {
    for (const port of ports) this.#agents.set(port, keepAliveAgent());
  }

  start(): void {
    const round = async () => {
      await Promise.all(this.ports.map((port) => this.#probe(port)));
      if (!this.#closed) this.#timer = setTimeout(round, this.intervalMs);
    };
    void round();
  }

  inRotation(port: number): boolean {
    return this.#rotation.has(port);
  }

  /** Sends the request to a port in rotation, waiting (a little at a time) while none is. */
  async call(method: string, path: string, options?: CallOptions): Promise<Outcome> {
    for (;;) {
      const ready = this.ports.filter((port) => this.#rotation.has(port));
      const port = ready[this.#next++ % Math.max(ready.length, 1)];
      if (port !== undefined) return exchange(port, this.agent(port), method, path, options);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  agent(port: number): Agent {
    return this.#agents.get(port) as Agent;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const agent of [...this.#agents.values(), this.#probes]) agent.destroy();
  }

  async #probe(port: number): Promise<void> {
    const answer = await exchange(port, this.#probes, 'GET', '/readyz');
    const ready = answer.status === 200;
    if (ready === this.#rotation.has(port)) return;
    if (ready) this.#rotation.add(port);
    else this.#rotation.delete(port);
    this.changes.push({ port, at: Date.now(), inRotation: ready });
  }
}
