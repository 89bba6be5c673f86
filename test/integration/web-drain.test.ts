import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:https';
import { connect as connectPlain } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';
import {
  logLines,
  type ServiceProcess,
  startProcess,
  storesOf,
  waitForOutput,
} from '../helpers/processes.js';
import { basicAuth, rawCall } from '../helpers/security.js';

/**
 * A web process (src/server.ts, WORKERS=none) stopped with SIGTERM while keep-alive clients, a slow
 * request and clients that never finish are on it (docs/operations.md "Stopping"): /readyz turns 503 at
 * once while the rest is served for the drain, then new connections are refused, the request in flight
 * is answered with `Connection: close`, and the process exits 0 within the grace whatever the clients do.
 */
let api: TestApi;
let tenant: Tenant;
let dataDir: string;
const drainSeconds = 2;
const graceSeconds = 6;
// No submission worker runs anywhere: a submit request waits this long for one, then answers 202.
const submitWaitMs = 3500;

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-web-drain-'));
});
afterAll(async () => {
  await api.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function web(): Promise<{ process: ServiceProcess; port: number }> {
  const started = startProcess('src/server.ts', {
    ...process.env,
    ...storesOf(api),
    WORKERS: 'none',
    PORT: '0',
    DATA_DIR: dataDir,
    SUBMIT_WAIT_MS: String(submitWaitMs),
    SHUTDOWN_DRAIN_SECONDS: String(drainSeconds),
    SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
    HTTP_KEEP_ALIVE_SECONDS: '7',
  });
  await waitForOutput(started, '"msg":"serving HTTPS"');
  const [serving] = logLines(started, /^serving HTTPS$/);
  return { process: started, port: serving?.port as number };
}

/** Whether a new TCP connection to the port is taken (false: refused). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectPlain(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A TLS connection on which the test writes what it likes; `ended` resolves when the server closes it. */
async function rawSocket(
  port: number,
): Promise<{ socket: TLSSocket; received: () => string; ended: Promise<number> }> {
  const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false });
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
  });
  socket.on('error', () => {});
  const ended = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise((resolve) => socket.once('secureConnect', resolve));
  return { socket, received: () => received, ended };
}

const pinoTime = (running: ServiceProcess, msg: RegExp) => logLines(running, msg)[0]?.time as number;

describe('a web process stopped with SIGTERM', () => {
  it('turns /readyz 503 at once, serves on for the drain, then refuses new connections, answers in flight with Connection: close, and exits 0 within the grace', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const { process: running, port } = await web();
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    const call = (path: string, method = 'GET') =>
      rawCall({
        secure: true,
        port,
        method,
        path,
        agent: keepAlive,
        headers: { authorization: basicAuth(tenant.key) },
      });
    expect((await call('/readyz')).status).toBe(200);
    const listed = await call('/v1/disputes');
    expect(listed.headers.connection).toBe('keep-alive');
    // HTTP_KEEP_ALIVE_SECONDS, as the process tells its clients.
    expect(listed.headers['keep-alive']).toBe('timeout=7');

    // An idle keep-alive connection, and two clients that never finish: one stops inside its headers,
    // one inside its body.
    const idle = await rawSocket(port);
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await expect.poll(() => idle.received(), { timeout: 5000 }).toContain('"status":"ok"');
    const halfHeaders = await rawSocket(port);
    halfHeaders.socket.write('GET /v1/disputes HTTP/1.1\r\nHost: localhost\r\n');
    const halfBody = await rawSocket(port);
    halfBody.socket.write(
      `POST /v1/templates HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basicAuth(tenant.key)}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":',
    );

    // And one still in its TLS handshake: a connection that never sends its ClientHello.
    const handshaking = connectPlain(port, '127.0.0.1');
    handshaking.on('error', () => {});
    const handshakeEnded = new Promise((resolve) => handshaking.once('close', resolve));
    await new Promise((resolve) => handshaking.once('connect', resolve));

    const signalled = Date.now();
    running.child.kill('SIGTERM');
    await waitForOutput(running, 'shutting down: draining', 5);
    const ready = await call('/readyz');
    const readyzMs = Date.now() - signalled;
    expect(readyzMs).toBeLessThan(1000);
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'draining' });

    // During the drain: everything else is served, on the keep-alive connection and on new ones.
    const list = await call('/v1/disputes');
    expect(list.status).toBe(200);
    expect(list.headers.connection).toBe('keep-alive');
    const fresh = await rawCall({ secure: true, port, method: 'GET', path: '/healthz' });
    expect(fresh.status).toBe(200);
    // A slow request, still running when the listener stops.
    const slow = call(`/v1/disputes/${dispute.id}/submit`, 'POST');

    await waitForOutput(running, 'stopped accepting connections', drainSeconds + 3);
    const stoppedAccepting = pinoTime(running, /^stopped accepting/);
    expect(stoppedAccepting - pinoTime(running, /^shutting down/)).toBeGreaterThanOrEqual(
      drainSeconds * 1000,
    );
    expect(logLines(running, /^stopped accepting/)[0]).toMatchObject({ inFlight: 2 });
    expect(await accepts(port)).toBe(false);
    // The idle keep-alive connection is closed as the listener stops, not at the end of the grace.
    expect(await idle.ended).toBeLessThan(stoppedAccepting + 1000);

    const answered = await slow;
    expect(answered.status, answered.text).toBe(202);
    expect(answered.body).toMatchObject({ id: dispute.id, state: 'compiling_evidence' });
    expect(answered.headers.connection).toBe('close');

    // The half-sent requests hold their connections until the grace ends; then they are cut.
    expect(await running.exited, running.output()).toBe(0);
    await Promise.all([halfHeaders.ended, halfBody.ended, handshakeEnded]);
    // Cut at the end of the grace, counted from the signal; closing the stores after it takes moments.
    const began = pinoTime(running, /^shutting down/);
    expect(pinoTime(running, /cut off/) - began).toBeGreaterThanOrEqual(graceSeconds * 1000);
    expect(pinoTime(running, /^stopped$/) - began).toBeLessThan(graceSeconds * 1000 + 1000);
    expect(logLines(running, /cut off/)).toEqual([
      expect.objectContaining({ level: 40, requests: 1, graceMs: graceSeconds * 1000 }),
    ]);
    keepAlive.destroy();
  }, 30_000);
});
