import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as plainRequest } from 'node:http';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { submissions } from '../../src/db/schema/index.js';
import { lockDispute } from '../../src/features/disputes/records.js';
import { generateTestDispute } from '../../src/features/disputes/test-mode.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { prepareSubmission } from '../../src/features/submissions/prepare.js';
import { createLogger } from '../../src/logger.js';
import { type RunningService, startService } from '../../src/service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

let db: TestDatabase;
let dataDir: string;
let service: RunningService;
let key: string;
let interrupted: string;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function get(
  secure: boolean,
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = secure ? request : plainRequest;
    const req = send(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, ...headers },
        rejectUnauthorized: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          // Every API answer is JSON; the board's own page is HTML, kept as text.
          const json = (res.headers['content-type'] ?? '').includes('json');
          resolve({ status: res.statusCode ?? 0, body: json ? JSON.parse(text) : { html: text } });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Whether a TCP connection to host:port is taken. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const prefix = testRedisPrefix();
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const settings = () => ({
  DATABASE_URL: db.url,
  APP_SECRET: 'service-test-secret-of-at-least-32-chars',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  QUEUE_PREFIX: prefix,
  ADMIN_USER: 'operator',
  ADMIN_PASSWORD: 'correct horse battery staple',
  // No load balancer to wait for (the drain: web-drain.test.ts).
  SHUTDOWN_DRAIN_SECONDS: '0',
});

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-service-'));
  const org = await createOrganisation(db.db, { name: 'Service Ltd' });
  key = org.test_key;
  // A submission recorded by a process that then stopped: the service must finish it when it starts.
  const caller = {
    orgId: org.org,
    livemode: false,
    apiVersion: '2021-09-15',
    version: '2021-09-15',
    queueLeadMinutes: 1440,
  } as const;
  const { dispute } = await generateTestDispute(db.db, caller, {
    state: 'needs_response',
    kind: 'chargeback',
  });
  interrupted = dispute.id;
  const submissionId = await db.db.transaction(async (tx) => {
    const { dispute: locked } = await lockDispute(tx, caller, dispute.id);
    return (await prepareSubmission(tx, locked, 'mock')).submissionId;
  });
  // Old enough that no request is still enqueueing it: the deadline sweep's to recover.
  await db.db
    .update(submissions)
    .set({ createdAt: new Date(Date.now() - 10 * 60_000) })
    .where(eq(submissions.id, submissionId));

  const config = loadConfig({ ...settings(), PORT: '0', HTTP_PORT: '0' });
  service = await startService(config, createLogger('silent'));
});
afterAll(async () => {
  await service.close();
  await dropKeys(redisUrl, prefix);
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('startService', () => {
  it('serves the API over HTTPS with a self-signed certificate it made under DATA_DIR/tls', async () => {
    const answer = await get(true, service.httpsPort, '/v1/disputes');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'list', livemode: false, url: '/v1/disputes' });
    expect(await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('answers every /v1 request on the plain HTTP_PORT with 403 insecure_connection', async () => {
    const answer = await get(false, service.httpPort ?? 0, '/v1/disputes');
    expect(answer).toEqual({
      status: 403,
      body: {
        url: '/v1/disputes',
        livemode: false,
        error: { status: 403, type: 'insecure_connection', message: 'Requests must be made over HTTPS.' },
      },
    });
  });

  it('answers headers over 16 KiB with a JSON 413 request_too_large', async () => {
    const answer = await get(true, service.httpsPort, '/v1/disputes', { 'x-padding': 'x'.repeat(20_000) });
    expect(answer).toEqual({
      status: 413,
      body: {
        url: null,
        livemode: false,
        error: {
          status: 413,
          type: 'request_too_large',
          message: 'The request line and headers are larger than 16 KiB.',
        },
      },
    });
  });

  it('serves Bull Board at /admin/queues: 401 without operator credentials', async () => {
    for (const authorization of [
      undefined,
      `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      basic('operator:wrong'),
    ]) {
      const answer = await get(
        true,
        service.httpsPort,
        '/admin/queues/api/queues',
        authorization ? { authorization } : {},
      );
      expect(answer).toEqual({
        status: 401,
        body: {
          error: { status: 401, type: 'authentication', message: 'Operator credentials are required.' },
        },
      });
    }
  });

  it('lists the four queues to an operator, with the deadline, idempotency-key and alert refund sweeps scheduled', async () => {
    const answer = await get(true, service.httpsPort, '/admin/queues/api/queues', {
      authorization: basic('operator:correct horse battery staple'),
    });
    expect(answer.status).toBe(200);
    const queues = answer.body.queues as { name: string; counts: Record<string, number> }[];
    expect(queues.map((queue) => queue.name).sort()).toEqual(['deadline', 'mirror', 'submission', 'webhook']);
    // A job scheduler always holds its next run as a delayed job: one for each sweep.
    expect(queues.find((queue) => queue.name === 'deadline')?.counts.delayed).toBe(3);
    const page = await get(true, service.httpsPort, '/admin/queues', {
      authorization: basic('operator:correct horse battery staple'),
    });
    expect(page.status).toBe(200);
    expect(String(page.body.html)).toContain('<title>Rebuttal queues</title>');
  });

  it('refuses Bull Board on the plain listener', async () => {
    const answer = await get(false, service.httpPort ?? 0, '/admin/queues/api/queues', {
      authorization: basic('operator:correct horse battery staple'),
    });
    expect(answer).toMatchObject({ status: 403, body: { error: { type: 'insecure_connection' } } });
  });

  it('finishes a submission a stopped process left pending', async () => {
    await expect
      .poll(async () => (await get(true, service.httpsPort, `/v1/disputes/${interrupted}`)).body.state, {
        timeout: 10_000,
      })
      .toBe('submitted');
  });

  it('links documents at the port it listens on (PORT=0: any free one), whatever the Host header', async () => {
    await expect
      .poll(async () => (await get(true, service.httpsPort, `/v1/disputes/${interrupted}`)).body.state, {
        timeout: 10_000,
      })
      .toBe('submitted');
    const answer = await get(true, service.httpsPort, `/v1/disputes/${interrupted}/response`, {
      host: 'attacker.example',
    });
    expect(answer.status).toBe(200);
    expect(new URL(String(answer.body.response_url)).origin).toBe(`https://localhost:${service.httpsPort}`);
  });

  // All of 127.0.0.0/8 is this machine's loopback: a listener bound to 127.0.0.1 alone refuses 127.0.0.2,
  // one on every interface takes it.
  it('listens on every interface with DATABASE_URL and HOST unset', async () => {
    expect(await connects('127.0.0.2', service.httpsPort)).toBe(true);
  });

  it('listens on HOST alone, both listeners', async () => {
    const config = loadConfig({ ...settings(), HOST: '127.0.0.1', PORT: '0', HTTP_PORT: '0' });
    const local = await startService(config, createLogger('silent'));
    try {
      expect((await get(true, local.httpsPort, '/v1/disputes')).status).toBe(200);
      expect(await connects('127.0.0.2', local.httpsPort)).toBe(false);
      expect(await connects('127.0.0.2', local.httpPort ?? 0)).toBe(false);
    } finally {
      await local.close();
    }
  });

  it('reuses the certificate it made on a later start', async () => {
    const first = await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const again = await startService(loadConfig({ ...settings(), PORT: '0' }), createLogger('silent'));
    await again.close();
    expect(await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8')).toBe(first);
  });
});
