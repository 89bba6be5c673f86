import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, listening } from './redis-server.js';
import type { TestAuthority } from './tls.js';

export interface SentinelGroupOptions {
  /** The master's name the sentinels monitor (REDIS_SENTINEL_NAME). */
  name?: string;
  /** A password on the master and the replica (requirepass and masterauth). */
  password?: string;
  /** A password on the sentinels themselves (their requirepass). */
  sentinelPassword?: string;
  /** TLS only, on every node and sentinel and between them, with certificates from this authority. */
  tls?: TestAuthority;
}

export interface Failover {
  /** The master's port before and after. */
  from: number;
  to: number;
  /** From the failover's order until every sentinel names the new master and the old one replicates it. */
  ms: number;
}

export interface SentinelGroup {
  name: string;
  /** `127.0.0.1:<port>,…`: the three sentinels, as REDIS_SENTINELS takes them. */
  sentinels: string;
  /** The port of the master, as the sentinels name it now. */
  masterPort(): Promise<number>;
  /**
   * A real failover, as Sentinel makes one (SENTINEL FAILOVER: the replica is promoted, the sentinels
   * switch, the old master is turned into the new master's replica). Resolves once every sentinel names
   * the new master and the old master replicates it, so another failover can follow at once.
   */
  failover(): Promise<Failover>;
  /** Kills every process of the group and removes its files. */
  close(): Promise<void>;
}

const deadlineMs = 30_000;

/**
 * A master, one replica and three sentinels (quorum 2) on free loopback ports, each its own
 * `redis-server`, with their configuration and logs in a temporary directory. Resolves once the replica
 * is in sync and every sentinel knows the replica and the other two sentinels, so a failover can start.
 */
export async function sentinelGroup(options: SentinelGroupOptions = {}): Promise<SentinelGroup> {
  const name = options.name ?? 'rebuttal';
  const dir = mkdtempSync(join(tmpdir(), 'rebuttal-sentinel-'));
  const children: ChildProcess[] = [];
  const auth = options.password ? ['--requirepass', options.password, '--masterauth', options.password] : [];
  const ca = options.tls && readFileSync(options.tls.caFile);
  const data: Access = { password: options.password, ca };
  const sentinel: Access = { password: options.sentinelPassword, ca };
  // The same settings serve the command line (`--name value`) and a sentinel's file (`name value`).
  const ports = (port: number): Array<[string, string]> =>
    options.tls
      ? [
          ['port', '0'],
          ['tls-port', String(port)],
          ['tls-cert-file', options.tls.certFile],
          ['tls-key-file', options.tls.keyFile],
          ['tls-ca-cert-file', options.tls.caFile],
          ['tls-auth-clients', 'no'],
          ['tls-replication', 'yes'],
        ]
      : [['port', String(port)]];
  const start = async (label: string, args: string[], port: number) => {
    const logfile = join(dir, `${label}.log`);
    const child = spawn('redis-server', [...args, '--logfile', logfile], { stdio: 'ignore' });
    children.push(child);
    await until(
      `${label} listening on ${port}`,
      () => listening(port),
      () => logTail(logfile),
    );
  };
  const dataNode = (label: string, port: number, extra: string[] = []) =>
    start(
      label,
      ['--dir', dir, '--save', '', ...ports(port).flatMap(([key, value]) => [`--${key}`, value])]
        .concat(auth, extra)
        .concat(
          // A replica's sync starts at once, not after the 5 s Redis waits for more replicas to share it.
          '--bind 127.0.0.1 --appendonly no --repl-diskless-sync-delay 0'.split(' '),
        ),
      port,
    );
  const close = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const gone = once(child, 'exit');
        child.kill('SIGKILL');
        await gone;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [masterPort, replicaPort] = [await freePort(), await freePort()];
    await dataNode('master', masterPort);
    await dataNode('replica', replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
    await until('the replica in sync', async () =>
      (await info(replicaPort, data)).includes('master_link_status:up'),
    );

    const sentinelPorts = [await freePort(), await freePort(), await freePort()];
    for (const [index, port] of sentinelPorts.entries()) {
      const conf = join(dir, `sentinel-${index}.conf`);
      // A sentinel rewrites its configuration file as it learns, so each has a writable one of its own.
      writeFileSync(
        conf,
        [
          ...ports(port).map((setting) => setting.join(' ')),
          'bind 127.0.0.1',
          `dir ${dir}`,
          options.sentinelPassword ? `requirepass ${options.sentinelPassword}` : '',
          `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
          // Failovers here are ordered, not detected: a long wait before calling a node down keeps a
          // loaded machine's stall from starting one of its own.
          `sentinel down-after-milliseconds ${name} 5000`,
          `sentinel failover-timeout ${name} 10000`,
          options.password ? `sentinel auth-pass ${name} ${options.password}` : '',
        ].join('\n'),
      );
      await start(`sentinel-${index}`, [conf, '--sentinel'], port);
      // Sentinel's periods are made for production (INFO every 10 s, an old master turned into a replica
      // 8 s after it is seen); shortened, a failover takes seconds. A loaded machine may stall a process
      // past the 2 s that sends a sentinel into its 30 s TILT mode, in which it does nothing: made lenient.
      await sentinelCommand(
        port,
        sentinel,
        'DEBUG info-period 500 publish-period 500 ping-period 250 tilt-trigger 15000 tilt-period 1000'.split(
          ' ',
        ),
      );
    }
    const group: SentinelGroup = {
      name,
      sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      masterPort: async () => (await masters(sentinelPorts, name, sentinel))[0] ?? 0,
      async failover() {
        const began = Date.now();
        const from = await group.masterPort();
        // A sentinel refuses while it has no replica it trusts yet, or a failover is still going on.
        await until('a sentinel accepting SENTINEL FAILOVER', async () => {
          try {
            await sentinelCommand(sentinelPorts[0] ?? 0, sentinel, ['FAILOVER', name]);
            return true;
          } catch (error) {
            if (/NOGOODSLAVE|INPROG/.test(String(error))) return false;
            throw error;
          }
        });
        let to = from;
        await until(`every sentinel naming a new master instead of ${from}`, async () => {
          const named = await masters(sentinelPorts, name, sentinel);
          to = named[0] ?? from;
          return to !== from && named.every((port) => port === to);
        });
        await settled(sentinelPorts, from, to);
        return { from, to, ms: Date.now() - began };
      },
      close,
    };
    await settled(sentinelPorts, replicaPort, masterPort);
    return group;
  } catch (error) {
    await close();
    throw error;
  }

  /** Every sentinel knows the other two and the replica as healthy, which replicates the master. */
  async function settled(ports: number[], replica: number, master: number): Promise<void> {
    await until(`port ${replica} replicating ${master}`, async () => {
      const text = await info(replica, data).catch(() => '');
      return text.includes(`master_port:${master}`) && text.includes('master_link_status:up');
    });
    await until('every sentinel knowing the replica and the other sentinels', async () => {
      for (const port of ports) {
        const master = (await sentinelCommand(port, sentinel, ['MASTER', name])) as string[];
        const fields = pairs(master);
        if (fields['num-slaves'] !== '1' || fields['num-other-sentinels'] !== '2') return false;
        const replicas = (await sentinelCommand(port, sentinel, ['REPLICAS', name])) as string[][];
        const known = replicas.map(pairs).find((fields) => fields.port === String(replica));
        if (known?.flags !== 'slave' || known['master-link-status'] !== 'ok') return false;
      }
      return true;
    });
  }
}

/** A password and, for TLS, the CA to trust: how the group's own checks reach a node or a sentinel. */
interface Access {
  password: string | undefined;
  ca: Buffer | undefined;
}

async function masters(ports: number[], name: string, access: Access): Promise<number[]> {
  return Promise.all(
    ports.map(async (port) => {
      const address = (await sentinelCommand(port, access, ['GET-MASTER-ADDR-BY-NAME', name])) as string[];
      return Number(address[1]);
    }),
  );
}

async function sentinelCommand(port: number, access: Access, args: string[]): Promise<unknown> {
  return withClient(port, access, (redis) => redis.call('SENTINEL', ...args));
}

async function info(port: number, access: Access): Promise<string> {
  return withClient(port, access, (redis) => redis.info('replication'));
}

async function withClient<T>(port: number, access: Access, use: (redis: Redis) => Promise<T>) {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    password: access.password,
    ...(access.ca && { tls: { ca: access.ca } }),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** A flat [key, value, key, value] reply as an object. */
function pairs(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

async function until(what: string, check: () => Promise<boolean>, detail?: () => string): Promise<void> {
  const end = Date.now() + deadlineMs;
  let problem = '';
  while (Date.now() < end) {
    try {
      if (await check()) return;
    } catch (error) {
      problem = ` (last: ${error instanceof Error ? error.message : String(error)})`;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `sentinel group: no ${what} within ${deadlineMs / 1000} s${problem}${detail ? `\n${detail()}` : ''}`,
  );
}

function logTail(logfile: string): string {
  try {
    return readFileSync(logfile, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return `(no log at ${logfile})`;
  }
}
