import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';
import { startWorkerProcess, storesOf } from '../helpers/processes.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * A process started and stopped as a process manager does (SIGTERM) says so at info, and nothing at warn
 * or above: a warning means something for on-call to look at, and a routine deploy is not that.
 */
let api: TestApi;
let tenant: Tenant;
let processor: FakeMockProcessor;
let dataDir: string;

beforeAll(async () => {
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '0' } });
  tenant = await newTenant(api);
  processor = await startFakeMockProcessor();
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-clean-stop-'));
});
afterAll(async () => {
  await processor.close();
  await api.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** GET /readyz over HTTPS (the service's certificate is self-signed): its status. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

/** The lines above info. */
const loud = (lines: { level: number; msg: string }[]) => lines.filter(({ level }) => level > 30);

describe('a clean stop', () => {
  it('of a worker process finishing an in-flight submission logs info lines only', async () => {
    const worker = await startWorkerProcess({
      ...storesOf(api),
      MOCK_PROCESSOR_URL: processor.url,
      WORKERS: 'submission',
      DEADLINE_SWEEP_SECONDS: '3600',
    });
    processor.delayMs = 1000;
    const { dispute } = await submittableDispute(api, tenant);
    await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    await expect.poll(() => processor.inFlight, { timeout: 10_000 }).toBe(1);
    worker.child.kill('SIGTERM');

    expect(await worker.exited, worker.output()).toBe(0);
    const lines = worker
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(loud(lines)).toEqual([]);
    expect(lines.map(({ msg }) => msg).slice(-3)).toEqual([
      'stopping: finishing in-flight jobs',
      'submission succeeded',
      'stopped',
    ]);
  });

  it('of the web process (WORKERS=none) after serving requests logs info lines only', async () => {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const prefix = testRedisPrefix();
    const config = loadConfig({
      DATABASE_URL: api.db.url,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      APP_SECRET: api.config.APP_SECRET ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      WORKERS: 'none',
      ADMIN_USER: 'operator',
      ADMIN_PASSWORD: 'correct horse battery staple',
      SHUTDOWN_DRAIN_SECONDS: '1',
    });
    const service = await startService(config, createLogger('info', sink));
    expect(await probe(service.httpsPort)).toBe(200);
    const closed = service.close();
    // A load balancer's probe during the drain is routine too.
    expect(await probe(service.httpsPort)).toBe(503);
    await closed;
    await dropKeys(redisUrl, prefix);

    expect(loud(lines)).toEqual([]);
  });
});
