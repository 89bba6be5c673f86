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
  /**
   * With replicas: `CLUSTER FAILOVER` sent to the replica of the master serving `key` (a client that
   * never touches that master's slots sees nothing), resolved once the replica is a master and every node
   * says `cluster_state:ok`. The ports of the master replaced and of the replica in its place.
   */
  failover(key: string): Promise<{ from: number; to: number; ms: number }>;
  /** Kills every node and removes their files. */
  stop(): Promise<void>;
}

/**
 * A three-master Redis Cluster on free loopback ports, without replicas or (`replicas: 1`) with one a
 * master, six nodes; its node files in a temporary directory: `redis-cli --cluster create`, then waits
 * until every node says `cluster_state:ok` and every replica has synced.
 */
export async function startRedisCluster(options: { replicas?: 0 | 1 } = {}): Promise<RedisClusterRig> {
  const started = Date.now();
  const replicas = options.replicas ?? 0;
  const dir = await mkdtemp(join(tmpdir(), 'rebuttal-cluster-'));
  const ports: number[] = [];
  for (let n = 0; n < 3 * (1 + replicas); n++) ports.push(await freePort());
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
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes, '--cluster-replicas', String(replicas), '--cluster-yes'],
      { timeout: 20_000 },
    );
    await clusterOk(ports);
    for (const port of ports) {
      await until(async () => {
        const role = await redisCli(port, 'info', 'replication');
        return role.includes('role:master') || role.includes('master_link_status:up');
      }, `a synced replica on port ${port}`);
    }
    const failover = async (key: string) => {
      const began = Date.now();
      const slot = Number(await redisCli(ports[0] as number, 'cluster', 'keyslot', key));
      // `<id> <ip:port@cport> <flags> <master id> <ping> <pong> <epoch> <link> <slots…>`, one line a node.
      const seen = (await redisCli(ports[0] as number, 'cluster', 'nodes')).trim().split('\n');
      const fields = seen.map((line) => line.split(' '));
      const serves = (entry: string[]) =>
        entry.slice(8).some((range) => {
          const [low, high = low] = range.split('-').map(Number);
          return slot >= (low as number) && slot <= (high as number);
        });
      const master = fields.find(serves);
      const replica = fields.find((entry) => entry[3] === master?.[0]);
      if (!master || !replica) throw new Error(`failover(): no replica of the master of slot ${slot}`);
      const portOf = (entry: string[]) => Number(/:(\d+)@/.exec(entry[1] ?? '')?.[1]);
      const from = portOf(master);
      const to = portOf(replica);
      await redisCli(to, 'cluster', 'failover');
      await until(async () => (await redisCli(to, 'role')).startsWith('master'), `a master on port ${to}`);
      await until(
        async () => (await redisCli(from, 'role')).startsWith('slave'),
        `a replica on port ${from}`,
      );
      await clusterOk(ports);
      return { from, to, ms: Date.now() - began };
    };
    return { nodes: nodes.join(','), ports, startMs: Date.now() - started, failover, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function redisCli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

async function clusterOk(ports: number[]): Promise<void> {
  for (const port of ports) {
    await until(
      async () => (await redisCli(port, 'cluster', 'info')).includes('cluster_state:ok'),
      `cluster_state:ok on port ${port}`,
    );
  }
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the Redis Cluster rig: no ${what} within 10 s`);
}
