import { createServer, type Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (Postgres), for tests of what the service does when that
 * server goes away: `stop()` is a server that is down (open connections die, new ones are refused),
 * `blackhole()` one that takes connections and bytes but never answers (a hung server, a partition), and
 * `resume()` the server back. Bytes held during a black hole are delivered on resume, as TCP retransmits
 * them once a partition heals.
 */
export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  blackhole(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

type Mode = 'forwarding' | 'stopped' | 'blackhole';

interface Pair {
  client: Socket;
  upstream: Socket | undefined;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: Mode = 'forwarding';
  const pairs = new Set<Pair>();
  let server = createServer(accept);
  const port = await listen(server, 0);

  function accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    // Held from the start: a black-holed connection reads nothing until resume() plugs it in.
    client.pause();
    if (mode === 'forwarding') connectUpstream(pair);
  }

  function connectUpstream(pair: Pair): void {
    const upstream = new Socket();
    pair.upstream = upstream;
    upstream.on('error', () => pair.client.destroy());
    // The server's last bytes (a FATAL before it closes) reach the client first: pipe ends it after them.
    upstream.on('close', () => pair.client.end());
    upstream.connect(target.port, target.host, () => {
      pair.client.pipe(upstream);
      upstream.pipe(pair.client);
      pair.client.resume();
    });
  }

  function destroyAll(): void {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
  }

  return {
    port,
    async stop() {
      mode = 'stopped';
      // A closed listener refuses (ECONNREFUSED), as a server that is down does. It reports closed once
      // its connections are gone, so they go first.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      destroyAll();
      await closed;
    },
    async blackhole() {
      mode = 'blackhole';
      for (const pair of pairs) {
        pair.client.unpipe();
        pair.client.pause();
        pair.upstream?.unpipe();
        pair.upstream?.pause();
      }
    },
    async resume() {
      const was = mode;
      mode = 'forwarding';
      if (was === 'stopped') {
        server = createServer(accept);
        await listen(server, port);
        return;
      }
      for (const pair of pairs) {
        if (!pair.upstream) {
          connectUpstream(pair);
          continue;
        }
        pair.client.pipe(pair.upstream);
        pair.upstream.pipe(pair.client);
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    async close() {
      const closed = server.listening && new Promise<void>((resolve) => server.close(() => resolve()));
      destroyAll();
      await closed;
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
