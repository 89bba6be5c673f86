import type { Processor } from '../../src/domain/vocabulary.js';
import { CheckoutAdapter } from '../../src/processors/checkout/adapter.js';
import { type CheckoutFake, checkoutFakeCredentials, startCheckoutFake } from '../fakes/checkout.js';
import type { AdapterSpec } from './adapter-contract.js';

/**
 * Each processor's adapter with its fake, as the contract suite (adapter-contract.ts) and the end-to-end
 * tests (test/integration/processors/end-to-end.test.ts) drive them.
 */
export const processorSpecs: Partial<Record<Processor, AdapterSpec>> = {
  checkout: {
    processor: 'checkout',
    createAdapter: (context) => new CheckoutAdapter(context),
    startFake: () => startCheckoutFake(),
    credentials: checkoutFakeCredentials,
    wrongCredentials: { secret_key: 'sk_sbox_notthekey00000000000000' },
    push: (fake, ids) => ids.map((id) => (fake as CheckoutFake).webhook(id)),
  },
};
