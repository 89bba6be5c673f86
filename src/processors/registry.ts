import { MockAdapter } from './mock/adapter.js';
import { StandaloneAdapter } from './standalone/adapter.js';
import type { MirroringAdapter, ProcessorAdapter } from './types.js';

/**
 * Chooses the adapter that answers a dispute, by where the dispute came from, and the one that lists a
 * connected account's disputes, by the account's processor (a mirrored dispute's `source` is its account's
 * processor, so both choose the same adapter).
 */
export interface AdapterRegistry {
  forDispute(dispute: { source: string }): ProcessorAdapter;
  forAccount(account: { processor: string }): MirroringAdapter;
  /** Whether accounts of this processor can be connected: its adapter lists disputes. */
  canMirror(processor: string): boolean;
}

export class UnknownAdapterError extends Error {}

export function createAdapterRegistry(adapters: { mock?: MockAdapter } = {}): AdapterRegistry {
  const bySource: Record<string, ProcessorAdapter> = {
    mock: adapters.mock ?? new MockAdapter(),
    api: new StandaloneAdapter(),
  };
  return {
    forDispute(dispute) {
      const adapter = bySource[dispute.source];
      if (!adapter) throw new UnknownAdapterError(`no adapter for disputes from '${dispute.source}'`);
      return adapter;
    },
    forAccount(account) {
      const adapter = bySource[account.processor];
      if (!adapter?.listDisputes) {
        throw new UnknownAdapterError(`no adapter lists disputes of '${account.processor}' accounts`);
      }
      return adapter as MirroringAdapter;
    },
    canMirror(processor) {
      return Object.hasOwn(bySource, processor) && bySource[processor]?.listDisputes !== undefined;
    },
  };
}
