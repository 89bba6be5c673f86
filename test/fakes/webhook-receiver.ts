import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with whether its signature checked out under the receiver's secret. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  payload: Record<string, unknown>;
  /** Verified with the `standardwebhooks` package, as a merchant's receiver would. */
  verified: boolean;
  /** What the receiver answered. */
  answeredWith: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook`: loopback, so only with WEBHOOK_ALLOW_PRIVATE. */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** The endpoint's signing secret, set once the create call has shown it. */
  secret: string | undefined;
  /** Statuses to answer with, one per request in order; 200 once they run out. */
  answers: number[];
  /** Resolves when `count` requests have arrived in all (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A merchant's webhook receiver: a real HTTP server on loopback that verifies what it gets. */
export async function startWebhookReceiver(options: { answers?: number[] } = {}): Promise<WebhookReceiver> {
  const arrivals = new EventEmitter();
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    secret: undefined,
    answers: [...(options.answers ?? [])],
    waitFor(count, timeoutMs = 10_000) {
      if (receiver.received.length >= count) return Promise.resolve(receiver.received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          arrivals.off('arrived', check);
          reject(
            new Error(`expected ${count} webhooks within ${timeoutMs} ms, got ${receiver.received.length}`),
          );
        }, timeoutMs);
        const check = () => {
          if (receiver.received.length < count) return;
          clearTimeout(timer);
          arrivals.off('arrived', check);
          resolve(receiver.received);
        };
        arrivals.on('arrived', check);
      });
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = receiver.answers.shift() ?? 200;
      receiver.received.push({
        path: req.url ?? '',
        headers: req.headers,
        body,
        payload: parse(body),
        verified: verify(receiver.secret, body, req.headers),
        answeredWith: status,
      });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      arrivals.emit('arrived');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}

function verify(secret: string | undefined, body: string, headers: IncomingHttpHeaders): boolean {
  if (!secret) return false;
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

function parse(body: string): Record<string, unknown> {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return {};
  }
}
