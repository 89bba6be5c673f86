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
} as const;
