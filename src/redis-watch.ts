import { Cluster, type Redis } from 'ioredis';
import type { Logger } from './logger.js';
import { describeRedis, type RedisClient, type RedisTarget } from './redis-connection.js';

/** Anything that reports failures as 'error' events: BullMQ's Queue, Worker and QueueEvents. */
export interface ErrorSource {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Statuses of an ioredis client that is not in the middle of (re)connecting. */
const settled = new Set(['ready', 'wait', 'end']);

/**
 * Errors that only say a connection is down or was closed, or that a master turned replica cut a blocking
 * read (UNBLOCKED: a failover), which the outage and failover lines already tell.
 */
const connectionProblem =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|Connection is closed|max retries per request|Stream isn't writeable|^UNBLOCKED /i;

/**
 * Redis as one process sees it, over all its connections: producers, workers, event listeners, the
 * request path's, and the copies BullMQ makes of them. Every connection's errors come here, so an outage
 * is one line when Redis goes away and one when every connection answers again, instead of ioredis's and
 * BullMQ's report of each failed reconnection. Without `report` it hears everything and logs nothing (a
 * CLI command, which says what failed in its own words).
 */
export class RedisWatch {
  readonly #clients = new Set<RedisClient>();
  readonly #backListeners: Array<() => void> = [];
  readonly #awayListeners: Array<() => void> = [];
  #awaySince: number | undefined;
  #closed = false;
  /** The master a Sentinel named at the last connection made (`host:port`), to tell a failover once. */
  #master: string | undefined;
  /** The cluster's masters serving slots at the last slots refresh (`host:port,…`), likewise. */
  #clusterMasters: string | undefined;

  constructor(private readonly report?: { logger: Logger; address: string }) {}

  /** Whether Redis is away now: some connection failed and not all have answered since. */
  get away(): boolean {
    return this.#awaySince !== undefined;
  }

  /**
   * Hears a client's errors and readiness, and those of every copy made of it (`duplicate`). A cluster's
   * failures of one node come as 'node error'; the cluster itself is ready while its slots are served, so
   * a replica taking a master's place is heard from its slots refresh ('refresh', after a MOVED) or when
   * it is ready again.
   */
  client<T extends RedisClient>(redis: T): T {
    this.#clients.add(redis);
    redis.on('error', (error: Error) => this.#heard(error));
    if (isCluster(redis)) {
      redis.on('node error', (error: Error) => this.#heard(error));
      // A cluster that cannot serve every slot (cluster_state:fail, nodes not joined) tells no error: it
      // closes and tries again.
      redis.on('reconnecting', () => this.#heard(new Error('the cluster does not serve every slot')));
      // Only a ready cluster's view counts: one still joining at start serves part of the slots.
      redis.on('refresh', () => {
        if (redis.status === 'ready') this.#clusterMastersOf(redis);
      });
    }
    redis.on('ready', () => {
      // BullMQ ends and reconnects some copies (a blocked connection reset): tracked again once back.
      this.#clients.add(redis);
      if (isCluster(redis)) this.#clusterMastersOf(redis);
      else if (redis.options.sentinels) this.#masterAt(redis);
      this.#answered();
    });
    redis.on('end', () => {
      this.#clients.delete(redis);
      this.#answered();
    });
    eachCopy(redis, (copy) => this.client(copy));
    return redis;
  }

  /** Hears a BullMQ object's 'error' events (its own connections' failures among them). */
  errors<T extends ErrorSource>(source: T): T {
    source.on('error', (error: Error) => this.#heard(error));
    return source;
  }

  /**
   * Runs `listener` each time Redis is back after being away, or its master changed (writes the old
   * master took just before may be lost: a job's completion, a scheduler), until the returned function is
   * called.
   */
  onBack(listener: () => void): () => void {
    this.#backListeners.push(listener);
    return () => this.#backListeners.splice(this.#backListeners.indexOf(listener) >>> 0, 1);
  }

  /**
   * Waits for `work` (a first sync, a listener getting ready) unless Redis is or goes away first: a
   * process starts without Redis, and the work finishes in the background once Redis answers.
   */
  async unlessAway(work: Promise<unknown>): Promise<void> {
    work.catch(() => {});
    if (this.away) return;
    let gone = () => {};
    const away = new Promise<void>((resolve) => {
      gone = resolve;
    });
    this.#awayListeners.push(gone);
    try {
      await Promise.race([work, away]);
    } finally {
      this.#awayListeners.splice(this.#awayListeners.indexOf(gone) >>> 0, 1);
    }
  }

  /**
   * A stopping process closes its connections on purpose: nothing more to tell. Waits on Redis still end
   * when it goes away meanwhile, so a close never waits on a Redis that is gone.
   */
  close(): void {
    this.#closed = true;
  }

  /** One line when a Sentinel-managed connection finds the master elsewhere than the last one did. */
  #masterAt(redis: Redis): void {
    const address = redis.stream && `${redis.stream.remoteAddress}:${redis.stream.remotePort}`;
    if (!address || address === this.#master) return;
    const before = this.#master;
    this.#master = address;
    if (before === undefined || this.#closed) return;
    this.report?.logger.warn(
      { address: this.report.address, from: before, to: address },
      'Redis master changed: the sentinels named a new master',
    );
    for (const listener of this.#backListeners) listener();
  }

  /**
   * One line when a ready cluster connection finds other masters serving the slots than the last one (of
   * any of the process's connections) did: a replica took a failed or demoted master's
   * place, and the old master may have lost its last writes, as on Sentinel.
   */
  #clusterMastersOf(cluster: Cluster): void {
    const masters = cluster
      .nodes('master')
      .map((node) => `${node.options.host}:${node.options.port}`)
      .sort();
    const now = masters.join(',');
    if (masters.length === 0 || now === this.#clusterMasters) return;
    const before = this.#clusterMasters;
    this.#clusterMasters = now;
    if (before === undefined || this.#closed) return;
    this.report?.logger.warn(
      { address: this.report.address, from: before.split(','), to: masters },
      'Redis Cluster masters changed: other nodes serve the slots',
    );
    for (const listener of this.#backListeners) listener();
  }

  #connecting(): boolean {
    return [...this.#clients].some((client) => !settled.has(client.status));
  }

  #heard(error: Error): void {
    if (this.#closed) {
      if (this.#connecting()) for (const listener of this.#awayListeners.splice(0)) listener();
      return;
    }
    if (this.away) return;
    if (this.#connecting()) {
      this.#awaySince = Date.now();
      this.report?.logger.warn(
        { address: this.report.address, problem: error.message },
        'Redis is away: jobs, rate limits and circuit breakers wait for it; retrying until it answers',
      );
      for (const listener of this.#awayListeners.splice(0)) listener();
      return;
    }
    // Every connection answers: a closing connection's last word, or a queue's own failure (a script's).
    if (connectionProblem.test(error.message)) return;
    this.report?.logger.warn({ address: this.report.address, problem: error.message }, 'job queue error');
  }

  #answered(): void {
    if (this.#closed || this.#awaySince === undefined || this.#connecting()) return;
    const awayMs = Date.now() - this.#awaySince;
    this.#awaySince = undefined;
    this.report?.logger.info({ address: this.report.address, awayMs }, 'Redis is back');
    for (const listener of this.#backListeners) listener();
  }
}

const isCluster = (redis: RedisClient): redis is Cluster => redis instanceof Cluster;

/** Calls `hear` with every copy made of `redis`: BullMQ copies a connection for its blocking reads. */
export function eachCopy<T extends RedisClient>(redis: T, hear: (copy: T) => void): void {
  const copyable = redis as unknown as { duplicate: (...args: unknown[]) => T };
  const duplicate = copyable.duplicate.bind(redis);
  copyable.duplicate = (...args: unknown[]) => {
    const copy = duplicate(...args);
    hear(copy);
    return copy;
  };
}

/**
 * The watch of a process that logs, naming where Redis is without a password: host:port, a cluster's
 * nodes, or the sentinels and the master's name.
 */
export function watchRedis(target: RedisTarget, logger: Logger): RedisWatch {
  return new RedisWatch({ logger, address: describeRedis(target) });
}
