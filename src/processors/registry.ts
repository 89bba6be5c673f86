import { Failure } from '../domain/failure.js';
import type { Processor } from '../domain/vocabulary.js';
import { AdyenAdapter } from './adyen/adapter.js';
import { AmexAdapter } from './amex/adapter.js';
import { BraintreeAdapter } from './braintree/adapter.js';
import { CheckoutAdapter } from './checkout/adapter.js';
import type { AdapterContext } from './connection.js';
import { MockAdapter } from './mock/adapter.js';
import { PaypalAdapter } from './paypal/adapter.js';
import { StandaloneAdapter } from './standalone/adapter.js';
import { StripeAdapter } from './stripe/adapter.js';
import type { PollableAdapter, ProcessorAdapter } from './types.js';
import { VantivAdapter } from './vantiv/adapter.js';
import { WorldpayAdapter } from './worldpay/adapter.js';

/**
 * Chooses the adapter that answers a dispute, by where the dispute came from, and the one that serves a
 * connected account, by the account's processor (a mirrored dispute's `source` is its account's
 * processor, so both choose the same adapter).
 */
export interface AdapterRegistry {
  forDispute(dispute: { source: string }): ProcessorAdapter;
  /** The adapter of a processor accounts can be connected to; throws UnknownAdapterError otherwise. */
  forProcessor(processor: string): ProcessorAdapter;
  forAccount(account: { processor: string }): PollableAdapter;
  /** Whether accounts of this processor can be connected. */
  canConnect(processor: string): boolean;
  /** Whether accounts of this processor are polled: its adapter lists disputes. */
  canPoll(processor: string): boolean;
}

/**
 * No adapter for a processor or a dispute's source. Not permanent: a deploy that brings the adapter
 * answers it, and a job meanwhile keeps retrying as it always has.
 */
export class UnknownAdapterError extends Failure {
  override readonly name = 'UnknownAdapterError';
  readonly permanent = false;
}

/** The adapters of real processors, by the name accounts and disputes carry. */
type AdapterClass = new (context: AdapterContext) => ProcessorAdapter;
const processorAdapters: Record<Processor, AdapterClass> = {
  stripe: StripeAdapter,
  braintree: BraintreeAdapter,
  paypal: PaypalAdapter,
  adyen: AdyenAdapter,
  checkout: CheckoutAdapter,
  worldpay: WorldpayAdapter,
  vantiv: VantivAdapter,
  amex: AmexAdapter,
};

const capabilitiesOf = Object.entries(processorAdapters).map(([name, Adapter]) => ({
  name,
  ...new Adapter({}).capabilities,
}));

/** Processors whose accounts are polled by a mirror job scheduler (jobs/schedules.ts). */
export const polledProcessors: ReadonlySet<string> = new Set([
  'mock',
  ...capabilitiesOf.filter((capabilities) => capabilities.list).map(({ name }) => name),
]);

/** Processors whose own webhooks are received on `POST /processor-hooks/:processor/:account`. */
export const pushingProcessors: ReadonlySet<string> = new Set(
  capabilitiesOf.filter((capabilities) => capabilities.push).map(({ name }) => name),
);

export function createAdapterRegistry(
  options: { mock?: MockAdapter; context?: AdapterContext } = {},
): AdapterRegistry {
  const context = options.context ?? {};
  const connectable: Record<string, ProcessorAdapter> = {
    mock: options.mock ?? new MockAdapter(),
    ...Object.fromEntries(
      Object.entries(processorAdapters).map(([name, Adapter]) => [name, new Adapter(context)]),
    ),
  };
  const bySource: Record<string, ProcessorAdapter> = { ...connectable, api: new StandaloneAdapter() };
  const forProcessor = (processor: string) => {
    const adapter = Object.hasOwn(connectable, processor) ? connectable[processor] : undefined;
    if (!adapter) throw new UnknownAdapterError(`no adapter for processor '${processor}'`);
    return adapter;
  };
  return {
    forDispute(dispute) {
      const adapter = Object.hasOwn(bySource, dispute.source) ? bySource[dispute.source] : undefined;
      if (!adapter) throw new UnknownAdapterError(`no adapter for disputes from '${dispute.source}'`);
      return adapter;
    },
    forProcessor,
    forAccount(account) {
      const adapter = forProcessor(account.processor);
      if (!adapter.listDisputes) {
        throw new UnknownAdapterError(`no adapter lists disputes of '${account.processor}' accounts`);
      }
      return adapter as PollableAdapter;
    },
    canConnect: (processor) => Object.hasOwn(connectable, processor),
    canPoll: (processor) => Object.hasOwn(connectable, processor) && polledProcessors.has(processor),
  };
}
