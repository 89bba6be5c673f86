import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { fromWire, type toWire } from '../../src/processors/mock/remote-adapter.js';
import { ProcessorError } from '../../src/processors/types.js';

/** The mock processor needs no account to answer for. */
const mockConnection = {
  account: { uid: '00000000-0000-4000-8000-000000000000', id: 'default', livemode: false },
  credentials: null,
  baseUrl: null,
  readOnly: false,
};

export interface FakeMockProcessor {
  url: string;
  /** The processor's own records: what it accepted, by idempotency key, and every call it received. */
  desk: MockAdapter;
  /** Milliseconds each answer is held back, so a test can kill a worker mid-call. */
  delayMs: number;
  /** Calls received and not yet answered. */
  inFlight: number;
  close(): Promise<void>;
}

/**
 * The mock processor over HTTP on loopback (what RemoteMockAdapter calls): one processor that several
 * worker processes share, deduplicating on the idempotency key as the in-process mock does.
 */
export async function startFakeMockProcessor(): Promise<FakeMockProcessor> {
  const desk = new MockAdapter();
  const fake: FakeMockProcessor = { url: '', desk, delayMs: 0, inFlight: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      fake.inFlight += 1;
      const reply = (status: number, body: object, headers: Record<string, string> = {}) => {
        fake.inFlight -= 1;
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/evidence') return reply(404, { message: 'no such route' });
      await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
      try {
        const wire = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReturnType<typeof toWire>;
        reply(200, await desk.submitEvidence({ ...fromWire(wire), connection: mockConnection }));
      } catch (error) {
        if (!(error instanceof ProcessorError)) return reply(400, { message: String(error) });
        const headers: Record<string, string> =
          error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
        reply(error.status ?? 500, { message: error.message }, headers);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return fake;
}
