import type { Processor } from '../../src/domain/vocabulary.js';
import { AdyenAdapter } from '../../src/processors/adyen/adapter.js';
import { AmexAdapter } from '../../src/processors/amex/adapter.js';
import { BraintreeAdapter } from '../../src/processors/braintree/adapter.js';
import { CheckoutAdapter } from '../../src/processors/checkout/adapter.js';
import { PaypalAdapter } from '../../src/processors/paypal/adapter.js';
import { StripeAdapter } from '../../src/processors/stripe/adapter.js';
import { VantivAdapter } from '../../src/processors/vantiv/adapter.js';
import { WorldpayAdapter } from '../../src/processors/worldpay/adapter.js';
import { type AdyenFake, adyenFakeCredentials, startAdyenFake } from '../fakes/adyen.js';
import { type AmexFake, startAmexFake } from '../fakes/amex.js';
import { type BraintreeFake, startBraintreeFake } from '../fakes/braintree.js';
import { type CheckoutFake, checkoutFakeCredentials, startCheckoutFake } from '../fakes/checkout.js';
import { type PaypalFake, startPaypalFake } from '../fakes/paypal.js';
import { type StripeFake, startStripeFake, stripeFakeCredentials } from '../fakes/stripe.js';
import { startVantivFake } from '../fakes/vantiv.js';
import { startWorldpayFake, type WorldpayFake, worldpayFakeCredentials } from '../fakes/worldpay.js';
import type { AdapterSpec } from './adapter-contract.js';

/**
 * Each processor's adapter with its fake, as the contract suite (adapter-contract.ts) and the end-to-end
 * tests (test/integration/processors/end-to-end.test.ts) drive them.
 */

export const braintreeCredentials = {
  merchant_id: 'fake1merchant2id',
  public_key: 'fakepublickey123',
  private_key: 'fakeprivatekey4567890abcdef',
};

export const paypalCredentials = {
  client_id: 'AYfake-client-id-0000000000',
  client_secret: 'EHfake-client-secret-000000',
  webhook_id: '8PT597110X687430LKGECATA',
};

/**
 * merchant_id is an identifier, not a secret: Vantiv's case ids begin with it (the SDKs' certification
 * tests), so logged paths carry it. Given as a number, which the adapter takes too, the contract does not
 * look for it among the secrets in the logs.
 */
export const vantivCredentials = {
  username: 'rebuttal-user',
  password: 's3cret-password',
  merchant_id: 1288791,
};

export const processorSpecs: Record<Processor, AdapterSpec> = {
  stripe: {
    processor: 'stripe',
    createAdapter: (context) => new StripeAdapter(context),
    startFake: () => startStripeFake(),
    credentials: stripeFakeCredentials,
    wrongCredentials: {
      ...stripeFakeCredentials,
      secret_key: 'sk_test_51WrongKey0000000000000000000000000000000009',
    },
    push: (fake, ids) => ids.map((id) => (fake as StripeFake).signedEvent(id)),
  },
  braintree: {
    processor: 'braintree',
    createAdapter: (context) => new BraintreeAdapter(context),
    startFake: () =>
      startBraintreeFake({
        merchantId: braintreeCredentials.merchant_id,
        publicKey: braintreeCredentials.public_key,
        privateKey: braintreeCredentials.private_key,
      }),
    credentials: braintreeCredentials,
    wrongCredentials: { ...braintreeCredentials, private_key: 'notTheRightPrivateKey0000' },
    push: (fake, ids) => ids.map((id) => (fake as BraintreeFake).notification('dispute_opened', id)),
    // The dispute travels base64-encoded inside the signed `bt_payload`.
    tamper: (push, id) => {
      const form = new URLSearchParams(push.body.toString('utf8'));
      const payload = Buffer.from(form.get('bt_payload') ?? '', 'base64').toString('utf8');
      form.set('bt_payload', Buffer.from(payload.replace(id, `${id}x`)).toString('base64'));
      return Buffer.from(form.toString());
    },
  },
  checkout: {
    processor: 'checkout',
    createAdapter: (context) => new CheckoutAdapter(context),
    startFake: () => startCheckoutFake(),
    credentials: checkoutFakeCredentials,
    wrongCredentials: { secret_key: 'sk_sbox_notthekey00000000000000' },
    push: (fake, ids) => ids.map((id) => (fake as CheckoutFake).webhook(id)),
  },
  paypal: {
    processor: 'paypal',
    createAdapter: (context) => new PaypalAdapter(context),
    startFake: () => startPaypalFake(),
    credentials: paypalCredentials,
    wrongCredentials: { ...paypalCredentials, client_secret: 'EHwrong-client-secret-00000' },
    push: (fake, ids) => ids.map((id) => (fake as PaypalFake).webhook(id)),
  },
  adyen: {
    processor: 'adyen',
    createAdapter: (context) => new AdyenAdapter(context),
    startFake: () => startAdyenFake(),
    credentials: adyenFakeCredentials,
    wrongCredentials: { ...adyenFakeCredentials, api_key: 'AQEwrongkey-0000000000000000' },
    push: (fake, ids) => (fake as AdyenFake).notifications(ids),
    report: (fake, ids) => (fake as AdyenFake).report(ids),
  },
  vantiv: {
    processor: 'vantiv',
    createAdapter: (context) => new VantivAdapter(context),
    startFake: () => startVantivFake(),
    credentials: vantivCredentials,
    wrongCredentials: { ...vantivCredentials, password: 'wrong-password' },
  },
  amex: {
    processor: 'amex',
    createAdapter: (context) => new AmexAdapter(context),
    startFake: () => startAmexFake(),
    // Amex publishes no merchant disputes API: its accounts take no credentials.
    credentials: null,
    wrongCredentials: {},
    report: (fake, ids) => (fake as AmexFake).report(ids),
  },
  worldpay: {
    processor: 'worldpay',
    createAdapter: (context) => new WorldpayAdapter(context),
    startFake: () => startWorldpayFake(),
    credentials: worldpayFakeCredentials,
    wrongCredentials: { ...worldpayFakeCredentials, webhook_secret: 'not-the-shared-secret' },
    push: (fake, ids) => (fake as WorldpayFake).events(ids),
    report: (fake, ids) => (fake as WorldpayFake).report(ids),
  },
};
