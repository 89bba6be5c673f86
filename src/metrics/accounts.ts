import { and, eq, inArray, sql } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/client.js';
import { connectedAccounts } from '../db/schema/index.js';
import { breakerStates, readBreakers } from '../processors/guard.js';
import { polledProcessors } from '../processors/registry.js';
import type { RedisClient } from '../redis-connection.js';
import type { Collector } from './collectors.js';

/**
 * Per connected account, labelled by its uid and processor (never its name or credentials): how far its
 * mirror is behind, and its circuit breaker.
 */

const secondsSincePolled = sql<number>`extract(epoch from now() - coalesce(
  ${connectedAccounts.lastPolledAt}, ${connectedAccounts.createdAt}))`.mapWith(Number);

/**
 * Seconds since each polled account's last successful poll (`last_polled_at`, written with the page that
 * moved its cursor, features/mirroring/write.ts), on the database's clock. An account not yet polled counts from
 * when it was connected. Only active accounts of processors that are polled: a disabled one, or one whose
 * disputes arrive only by push or import, has no poll to be late.
 */
export function mirrorLag(registry: Registry, db: Db): Collector {
  const gauge = new Gauge({
    name: 'rebuttal_mirror_lag_seconds',
    help: 'Seconds since the last successful poll of each active polled account (since it was connected, if never).',
    labelNames: ['account', 'processor'],
    registers: [registry],
  });
  return {
    name: 'mirror_lag',
    async read() {
      const rows = await db
        .select({
          account: connectedAccounts.uid,
          processor: connectedAccounts.processor,
          seconds: secondsSincePolled,
        })
        .from(connectedAccounts)
        .where(
          and(
            eq(connectedAccounts.status, 'active'),
            inArray(connectedAccounts.processor, [...polledProcessors]),
          ),
        );
      return () => {
        gauge.reset();
        for (const row of rows) {
          gauge.set({ account: row.account, processor: row.processor }, Math.max(0, row.seconds));
        }
      };
    },
    clear: () => gauge.reset(),
  };
}

/**
 * Each connected account's circuit breaker (processors/guard.ts), read from Redis as the guard keeps it:
 * one series per state, 1 for the state it is in; and the calls in a row that found the processor away.
 */
export function breakerStatesOf(registry: Registry, db: Db, redis: RedisClient, prefix: string): Collector {
  const state = new Gauge({
    name: 'rebuttal_circuit_breaker_state',
    help: "Each account's circuit breaker: 1 for the state it is in (closed, open, half_open), 0 for the others.",
    labelNames: ['account', 'processor', 'state'],
    registers: [registry],
  });
  const failures = new Gauge({
    name: 'rebuttal_circuit_breaker_failures',
    help: 'Calls in a row that found the processor away (no answer, 5xx), per account; 5 open the circuit.',
    labelNames: ['account', 'processor'],
    registers: [registry],
  });
  const clear = () => {
    state.reset();
    failures.reset();
  };
  return {
    name: 'circuit_breakers',
    async read() {
      // Active accounts only: a paused or disabled one makes no calls, so its breaker says nothing new.
      const accounts = await db
        .select({ account: connectedAccounts.uid, processor: connectedAccounts.processor })
        .from(connectedAccounts)
        .where(eq(connectedAccounts.status, 'active'));
      const readings = await readBreakers(
        redis,
        prefix,
        accounts.map(({ account }) => account),
      );
      return () => {
        clear();
        for (const { account, processor } of accounts) {
          const reading = readings.get(account);
          if (!reading) continue;
          for (const name of breakerStates) {
            state.set({ account, processor, state: name }, reading.state === name ? 1 : 0);
          }
          failures.set({ account, processor }, reading.failures);
        }
      };
    },
    clear,
  };
}
