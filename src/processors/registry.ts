import { MockAdapter } from './mock/adapter.js';
import { StandaloneAdapter } from './standalone/adapter.js';
import type { ProcessorAdapter } from './types.js';

/** Chooses the adapter that answers a dispute, by where the dispute came from. */
export interface AdapterRegistry {
  forDispute(dispute: { source: string }): ProcessorAdapter;
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
  };
}
