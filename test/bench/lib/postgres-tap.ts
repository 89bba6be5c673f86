import { type ProxyWatcher, startTcpProxy } from '../../helpers/tcp-proxy.js';

/**
 * A TCP relay in front of Postgres (test/helpers/tcp-proxy.ts) that times every statement as the client
 * sees it: from the client's Sync (or simple Query) to the server's ReadyForQuery, which closes every
 * statement of the extended protocol. So the search bench learns the database time of the service's own
 * statements, whatever SQL it sends and whatever plans Postgres picks for its prepared statements,
 * without reading its code.
 *
 * It reads only the protocol's framing (a type byte and a length); the bytes pass unchanged. The client
 * must not ask for TLS (`sslmode=disable`): an encrypted stream cannot be read, and is left untimed.
 */

export interface StatementTiming {
  /** The statement's SQL text, as the client parsed it (the last Parse on its connection). */
  sql: string;
  /** When the client's Sync passed (performance.now()). */
  started: number;
  ms: number;
}

export interface PostgresTap {
  port: number;
  /** Every statement answered so far, in the order the answers came. */
  timings: StatementTiming[];
  /** Statements sent and not answered yet, on every connection. */
  pending(): number;
  close(): Promise<void>;
}

const sslRequest = 80_877_103;
const gssRequest = 80_877_104;

/** Splits a byte stream into whole messages; `typed` false for the first (untyped) message of a client. */
class Framer {
  private buffer: Buffer = Buffer.alloc(0);
  /** Set on a request for encryption: nothing after it can be read. */
  encrypted = false;
  constructor(private typed: boolean) {}

  push(chunk: Buffer, onMessage: (type: string, body: Buffer) => void): void {
    if (this.encrypted) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const head = this.typed ? 1 : 0;
      if (this.buffer.length < head + 4) return;
      const length = this.buffer.readUInt32BE(head);
      if (this.buffer.length < head + length) return;
      const type = this.typed ? String.fromCharCode(this.buffer[0] ?? 0) : '';
      const body = this.buffer.subarray(head + 4, head + length);
      this.buffer = this.buffer.subarray(head + length);
      if (!this.typed && [sslRequest, gssRequest].includes(body.readUInt32BE(0))) {
        this.encrypted = true;
        console.error(
          'postgres tap: a client asked for encryption; its statements go untimed (sslmode=disable)',
        );
        return;
      }
      this.typed = true;
      onMessage(type, body);
    }
  }
}

/** The zero-terminated string at `from`, and where the next field starts. */
function cString(body: Buffer, from: number): [string, number] {
  const end = body.indexOf(0, from);
  return [body.toString('utf8', from, end), end + 1];
}

/** One connection's watcher: records a timing in `timings` for each statement answered. */
function statementTimer(
  timings: StatementTiming[],
  pending: { sql: string; started: number }[],
): ProxyWatcher {
  const statements = new Map<string, string>();
  let current = '';
  const fromClient = new Framer(false);
  const fromServer = new Framer(true);
  return {
    fromClient(chunk) {
      fromClient.push(chunk, (type, body) => {
        if (type === 'P') {
          const [name, next] = cString(body, 0);
          current = cString(body, next)[0];
          statements.set(name, current);
        } else if (type === 'B') {
          const [, next] = cString(body, 0);
          current = statements.get(cString(body, next)[0]) ?? current;
        } else if (type === 'Q') {
          pending.push({ sql: cString(body, 0)[0], started: performance.now() });
        } else if (type === 'S') {
          pending.push({ sql: current, started: performance.now() });
        }
      });
    },
    fromServer(chunk) {
      // The server's answer to an encryption request is one bare byte: nothing after it is framed.
      if (fromClient.encrypted) return;
      fromServer.push(chunk, (type) => {
        // The first ReadyForQuery ends the start-up, when nothing is pending.
        const answered = type === 'Z' ? pending.shift() : undefined;
        if (answered) timings.push({ ...answered, ms: performance.now() - answered.started });
      });
    },
  };
}

/** Relays 127.0.0.1:<port> to `target`, timing each statement (see above). */
export async function startPostgresTap(target: { host: string; port: number }): Promise<PostgresTap> {
  const timings: StatementTiming[] = [];
  // Per connection, Syncs sent and not yet answered, oldest first: each ReadyForQuery answers the oldest.
  const queues: { sql: string; started: number }[][] = [];
  const proxy = await startTcpProxy(target, () => {
    const queue: { sql: string; started: number }[] = [];
    queues.push(queue);
    return statementTimer(timings, queue);
  });
  return {
    port: proxy.port,
    timings,
    pending: () => queues.reduce((sum, queue) => sum + queue.length, 0),
    close: () => proxy.close(),
  };
}
