import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  logLines,
  type ServiceProcess,
  startProcess,
  storesOf,
  waitForOutput,
} from '../helpers/processes.js';
import { freePort, listening } from '../helpers/redis-server.js';

/**
 * A Redis Cluster that does not serve every slot (its nodes never joined: cluster_state:fail) answers no
 * error: the cluster client closes and tries again, silently. The process must say Redis is away and
 * serve what needs no Redis, as it does when a single Redis is away, not wait at start without a word.
 */
let api: TestApi;
let node: ChildProcess;
let port: number;
let dir: string;
let web: ServiceProcess | undefined;

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  dir = await mkdtemp(join(tmpdir(), 'rebuttal-cluster-unready-'));
  port = await freePort();
  node = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--cluster-enabled', 'yes'],
    { stdio: 'ignore' },
  );
  for (let tries = 0; tries < 100 && !(await listening(port)); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => {
  web?.child.kill('SIGKILL');
  node?.kill('SIGKILL');
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

it('a web process on a cluster that serves no slot says Redis is away and serves its probes', async () => {
  web = startProcess('src/server.ts', {
    ...process.env,
    ...storesOf(api),
    REDIS_URL: '',
    REDIS_CLUSTER_NODES: `127.0.0.1:${port}`,
    PORT: '0',
    WORKERS: 'none',
  });
  await waitForOutput(web, '"msg":"serving HTTPS"', 30);
  expect(logLines(web, /^Redis is away/)).toEqual([
    expect.objectContaining({
      level: 40,
      address: `cluster 127.0.0.1:${port}`,
      problem: 'the cluster does not serve every slot',
    }),
  ]);
}, 60_000);
