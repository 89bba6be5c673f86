import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, listening } from './redis-server.js';

const run = promisify(execFile);

export interface RedisClusterRig {
  /** `127.0.0.1:<port>,…`: the nodes as REDIS_CLUSTER_NODES takes them. */
  nodes: string;
  ports: number[];
  /** Milliseconds from the first spawn to `cluster_state:ok`. */
  startMs: number;
  /** Kills every node and removes their files. */
  stop(): Promise<void>;
}

/**
 * A three-master Redis Cluster (no replicas) on free loopback ports, its node files in a temporary
 * directory: `redis-cli --cluster create`, then waits until every node says `cluster_state:ok`.
 */
export async function startRedisCluster(): Promise<RedisClusterRig> {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'rebuttal-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const servers: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      servers.map(async (server) => {
        if (server.exitCode !== null || server.signalCode !== null) return;
        const gone = once(server, 'exit');
        server.kill('SIGKILL');
        await gone;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      servers.push(
        spawn(
          'redis-server',
          [
            ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
            ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`],
            ...['--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no'],
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) await until(() => listening(port), `redis-server on port ${port}`);
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 20_000,
    });
    for (const port of ports) {
      await until(async () => {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
        return stdout.includes('cluster_state:ok');
      }, `cluster_state:ok on port ${port}`);
    }
    return { nodes: nodes.join(','), ports, startMs: Date.now() - started, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the Redis Cluster did not start: no ${what} within 10 s`);
}
