import { sql } from 'drizzle-orm';
import type { Db } from './db/client.js';
import type { RedisClient } from './redis-connection.js';
import { TimeLimitError, within } from './time-limit.js';

/**
 * Whether this process can do its work now (`GET /readyz`): Postgres and Redis both answer, and it is not
 * going away. A load balancer stops sending requests to a process that is not ready, and starts again once
 * it is; `/healthz` only says the process is up, so an orchestrator restarts a process only when it is
 * hung, not when a shared dependency is away.
 */

export type Check = { ok: true } | { ok: false; problem: string };

export interface Readiness {
  check(): Promise<{ ready: boolean; checks: { postgres: Check; redis: Check } }>;
  /** Whether the process is stopping (`drain`): not ready whatever its dependencies say. */
  readonly draining: boolean;
  /** From now on the process is going away (docs/operations.md "Rolling restart"): for good. */
  drain(): void;
}

/** Long enough for a healthy dependency under load; short enough for a load balancer's probe. */
const checkTimeoutMs = 2000;

export function readinessOf(deps: { db: Db; redis: RedisClient }): Readiness {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
    async check() {
      const [postgres, redis] = await Promise.all([
        checked(deps.db.execute(sql`select 1`), 'Postgres'),
        checked(deps.redis.ping(), 'Redis'),
      ]);
      return { ready: postgres.ok && redis.ok, checks: { postgres, redis } };
    },
  };
}

async function checked(probe: Promise<unknown>, name: string): Promise<Check> {
  try {
    await within(probe, checkTimeoutMs, name);
    return { ok: true };
  } catch (error) {
    // What failed, not how: the answer is public (no credentials), so no connection details in it.
    const reason = error instanceof TimeLimitError ? `no answer within ${checkTimeoutMs} ms` : 'unavailable';
    return { ok: false, problem: `${name}: ${reason}` };
  }
}
