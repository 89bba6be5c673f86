import type { Network } from './networks.js';

/**
 * Sample values of realistic disputes: the test-dispute generator, the mock processor and the benches
 * draw from them.
 */
export const sampleDisputeValues = {
  customers: [
    ['Ada Lovelace', 'ada@example.com'],
    ['Grace Hopper', 'grace@example.org'],
    ['Alan Turing', 'alan@example.net'],
    ['Katherine Johnson', 'katherine@example.com'],
    ['Edsger Dijkstra', 'edsger@example.org'],
    ['Barbara Liskov', 'barbara@example.net'],
  ],
  reasons: [
    'fraudulent',
    'product_not_received',
    'duplicate',
    'subscription_canceled',
    'unrecognized',
    'general',
  ],
  descriptors: ['REBUTTAL DEMO', 'ACME STORE', 'WIDGETS INC'],
  checks: ['pass', 'fail', 'unavailable', 'unchecked'],
  /**
   * For each sample reason, card networks' own codes that stand for it (the tables of
   * processors/network-reasons.ts read each as that reason).
   */
  networkCodes: {
    fraudulent: [
      ['visa', '10.4'],
      ['mastercard', '4837'],
    ],
    product_not_received: [
      ['visa', '13.1'],
      ['mastercard', '4855'],
    ],
    duplicate: [
      ['visa', '12.6.1'],
      ['mastercard', '4834'],
    ],
    subscription_canceled: [
      ['visa', '13.2'],
      ['mastercard', '4841'],
    ],
    unrecognized: [['mastercard', '4863']],
    general: [
      ['visa', '12.7'],
      ['mastercard', '4854'],
    ],
  } satisfies Record<string, readonly (readonly [Network, string])[]>,
} as const;

/**
 * A card network and its code for a dispute of `reason`: the `choice`-th (wrapping) of the sample
 * reason's codes; none for a reason without samples. Chosen by a number the caller already has, so that
 * seeded data stays what it was.
 */
export function sampleNetwork(
  reason: string,
  choice: number,
): { network: Network | null; networkReasonCode: string | null } {
  const { networkCodes } = sampleDisputeValues;
  const codes: readonly (readonly [Network, string])[] = Object.hasOwn(networkCodes, reason)
    ? networkCodes[reason as keyof typeof networkCodes]
    : [];
  const [network, networkReasonCode] = codes[Math.abs(Math.trunc(choice)) % Math.max(codes.length, 1)] ?? [
    null,
    null,
  ];
  return { network, networkReasonCode };
}
