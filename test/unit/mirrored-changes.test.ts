import { describe, expect, it } from 'vitest';
import { changeEvents, latestById } from '../../src/domain/mirrored-changes.js';

/** What a mirrored change reports (docs/api.md, "Webhooks"), written out from the contract. */
describe('changeEvents', () => {
  it.each([
    // inserted, previous state, state now, events
    [true, null, 'needs_response', ['dispute.created']],
    [true, null, 'lost', ['dispute.created']],
    [false, 'needs_response', 'needs_response', ['dispute.updated']],
    [false, 'needs_response', 'under_review', ['dispute.updated']],
    [false, 'submitted', 'under_review', ['dispute.updated']],
    [false, 'under_review', 'won', ['dispute.updated', 'dispute.closed']],
    [false, 'accepted', 'lost', ['dispute.updated', 'dispute.closed']],
    [false, 'needs_response', 'charge_refunded', ['dispute.updated', 'dispute.closed']],
    [false, 'warning_needs_response', 'warning_closed', ['dispute.updated', 'dispute.closed']],
    [false, 'won', 'won', ['dispute.updated']],
    [false, 'won', 'lost', ['dispute.updated']],
    [false, null, 'lost', ['dispute.updated', 'dispute.closed']],
  ] as const)('inserted %s, from %s to %s: %j', (inserted, previousState, state, expected) => {
    expect(changeEvents({ inserted, previousState, state })).toEqual(expected);
  });
});

describe('latestById', () => {
  it('keeps one entry per id, the last listed, in the order of last listing', () => {
    const page = [
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
      { id: 'a', n: 3 },
      { id: 'c', n: 4 },
    ];
    expect(latestById(page)).toEqual([
      { id: 'b', n: 2 },
      { id: 'a', n: 3 },
      { id: 'c', n: 4 },
    ]);
  });
});
