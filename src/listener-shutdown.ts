import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A listener that stops without leaving keep-alive clients behind (docs/operations.md "Stopping"): Node's
 * own close() waits for every connection, and a keep-alive client's stays open until it goes idle for
 * the keep-alive timeout, then is reused, so a busy client would keep the process forever.
 */
export interface StoppableListener {
  /**
   * Stops accepting connections; answers the requests in flight, and any that still come on connections
   * already open, with `Connection: close`; closes each connection once it is idle. `closed` resolves once
   * every connection is closed, or after `cutOffMs`, when every connection still open is cut off, with
   * the requests that were then cut off.
   */
  stop(cutOffMs: number): { inFlight: number; closed: Promise<{ cut: number }> };
}

export function stoppable(server: Server): StoppableListener {
  const inFlight = new Set<ServerResponse>();
  // Every socket, from its first byte: Node's closeAllConnections() skips one still in its TLS handshake
  // (up to 120 s of handshakeTimeout), which would hold close() past the grace.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let stopping = false;
  const closeWhenDone = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  // Before the app's own listener, so that the header is on the answer whatever the app sends.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (stopping) closeWhenDone(res);
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // An answer already under way when the listener stopped went out without the header: its
      // connection is closed as soon as it is idle instead.
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
  });

  return {
    stop(cutOffMs) {
      stopping = true;
      for (const res of inFlight) closeWhenDone(res);
      const closed = new Promise<{ cut: number }>((resolve) => {
        let cut = 0;
        const cutOff = setTimeout(() => {
          cut = inFlight.size;
          server.closeAllConnections();
          for (const socket of sockets) socket.destroy();
        }, cutOffMs).unref();
        server.close(() => {
          clearTimeout(cutOff);
          resolve({ cut });
        });
        server.closeIdleConnections();
      });
      return { inFlight: inFlight.size, closed };
    },
  };
}
