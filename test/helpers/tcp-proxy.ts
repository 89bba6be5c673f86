import { createServer, type Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (Postgres), for tests of what the service does when that
 * server goes away: `stop()` is a server that is down (open connections die, new ones are refused),
 * `blackhole()` one that takes connections and bytes but never answers (a hung server, a partition), and
 * `resume()` the server back. Bytes held during a black hole are delivered on resume, as TCP retransmits
 * them once a partition heals. `watch`, when given, makes an observer per connection that sees each chunk
 * as it passes (the search bench times Postgres's statements so: test/bench/lib/postgres-tap.ts).
 */
export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  blackhole(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

type Mode = 'forwarding' | 'stopped' | 'blackhole';

export interface ProxyWatcher {
  fromClient(chunk: Buffer): void;
  fromServer(chunk: Buffer): void;
}

interface Pair {
  client: Socket;
  upstream: Socket | undefined;
  watcher: ProxyWatcher | undefined;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  watch?: () => ProxyWatcher,
): Promise<TcpProxy> {
  let mode: Mode = 'forwarding';
  const pairs = new Set<Pair>();
  let server = createServer(accept);
  const port = await listen(server, 0);

  function accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined, watcher: watch?.() };
    pairs.add(pair);
    // No Nagle: a relay holding back small writes for a delayed ACK adds 40 ms waits the server never had.
    client.setNoDelay(true);
    client.on('error', () => {});
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    // Held from the start: a black-holed connection reads nothing until resume() plugs it in.
    client.pause();
    // Added to a paused stream, a listener leaves it paused: it sees what is forwarded, when it is.
    if (pair.watcher) client.on('data', (chunk: Buffer) => pair.watcher?.fromClient(chunk));
    if (mode === 'forwarding') connectUpstream(pair);
  }

  function connectUpstream(pair: Pair): void {
    const upstream = new Socket();
    upstream.setNoDelay(true);
    pair.upstream = upstream;
    upstream.on('error', () => pair.client.destroy());
    // The server's last bytes (a FATAL before it closes) reach the client first: pipe ends it after them.
    upstream.on('close', () => pair.client.end());
    if (pair.watcher) upstream.on('data', (chunk: Buffer) => pair.watcher?.fromServer(chunk));
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
