import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeProcess } from '../../src/composition.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * PUBLIC_URL unset is said where it matters: by a process that delivers webhooks (their response_url has
 * no request to take an origin from), not by every process that starts.
 */
let db: TestDatabase;
const prefix = testRedisPrefix();
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await dropKeys(redisUrl, prefix);
  await db.drop();
});

/** The lines a process running `workers` writes as its runtime opens. */
async function startLines(workers: string): Promise<{ level: number; msg: string }[]> {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    APP_SECRET: 'test-app-secret-of-at-least-32-characters',
    WORKERS: workers,
  });
  const system = await composeProcess(config, createLogger('info', sink));
  await system.close();
  return lines.map(({ level, msg }) => ({ level, msg }));
}

const unset = {
  level: 40,
  msg: 'PUBLIC_URL is unset: response_url links in webhooks point at this machine; set it when clients reach the service elsewhere',
};

describe('PUBLIC_URL unset', () => {
  it('warns once in a process that delivers webhooks', async () => {
    expect(
      (await startLines('webhook,submission')).filter(({ msg }) => msg.startsWith('PUBLIC_URL')),
    ).toEqual([unset]);
  });

  it('is not mentioned by processes that build no links without a request (other workers, the API alone)', async () => {
    for (const workers of ['submission,mirror,deadline', 'none']) {
      expect(
        (await startLines(workers)).filter(({ msg }) => msg.startsWith('PUBLIC_URL')),
        workers,
      ).toEqual([]);
    }
  });
});
