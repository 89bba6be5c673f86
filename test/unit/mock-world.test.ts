import { describe, expect, it } from 'vitest';
import { serviceLocalStates } from '../../src/domain/states.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import type { DisputePage, NormalizedDispute } from '../../src/processors/types.js';

/** The mock processor's world: what mirroring, the demo and the bench rely on. */
const account = { uid: '00000000-0000-4000-8000-000000000001', id: 'default', livemode: false };
const now = () => Date.parse('2026-03-01T12:00:00Z');

/** Every page from `cursor` until the world says there is no more. */
function listAll(world: MockDisputeWorld, cursor: string | null, limit: number) {
  const pages: DisputePage[] = [];
  for (;;) {
    const page = world.account(account).list(cursor, limit);
    pages.push(page);
    cursor = page.nextCursor;
    if (!page.hasMore) return { pages, cursor };
  }
}

describe('a fixed world', () => {
  it('lists each dispute once, in pages of at most the limit, and then nothing', () => {
    const world = new MockDisputeWorld({ seed: 3, initialDisputes: 250, live: false, now });
    const { pages, cursor } = listAll(world, null, 100);
    expect(pages.map((page) => [page.disputes.length, page.hasMore])).toEqual([
      [100, true],
      [100, true],
      [50, false],
    ]);
    expect(new Set(pages.flatMap((page) => page.disputes.map((dispute) => dispute.id))).size).toBe(250);
    expect(cursor).toBe('250.0');
    expect(world.account(account).list(cursor, 100)).toEqual({
      disputes: [],
      nextCursor: '250.0',
      hasMore: false,
    });
  });

  it('is the same for the same seed and account, and differs for another account name', () => {
    const ids = (seed: number, id: string) =>
      new MockDisputeWorld({ seed, initialDisputes: 5, live: false, now })
        .account({ ...account, id })
        .disputes()
        .map((dispute) => dispute.id);
    expect(ids(3, 'default')).toEqual(ids(3, 'default'));
    expect(ids(3, 'default')).not.toEqual(ids(3, 'other'));
    expect(ids(3, 'default')).not.toEqual(ids(4, 'default'));
  });

  it('holds realistic disputes in processor states only, with deadlines and amounts', () => {
    const disputes = new MockDisputeWorld({ seed: 3, initialDisputes: 200, live: false, now })
      .account(account)
      .disputes();
    for (const dispute of disputes) {
      expect(serviceLocalStates).not.toContain(dispute.state);
      expect(dispute).toMatchObject({ currency: 'usd', amount: expect.any(Number), dueBy: expect.any(Date) });
      expect(dispute.reversalTotal).toBe((dispute.amount ?? 0) + (dispute.fee ?? 0));
      if (dispute.state === 'needs_response') expect(dispute.dueBy?.getTime()).toBeGreaterThan(now());
    }
    expect(new Set(disputes.map((dispute) => dispute.state)).size).toBeGreaterThan(4);
  });

  it('lists a change again after the cursor, once, with its new values', () => {
    const world = new MockDisputeWorld({ seed: 3, initialDisputes: 3, live: false, now });
    const { cursor } = listAll(world, null, 10);
    const [first] = world.account(account).disputes() as [NormalizedDispute];
    world.account(account).change(first.id, { state: 'won' });
    world.account(account).change(first.id, { state: 'lost' });
    expect(world.account(account).list(cursor, 10)).toEqual({
      disputes: [{ ...first, state: 'lost' }],
      nextCursor: '5.0',
      hasMore: false,
    });
  });
});

describe('a live world', () => {
  it('moves on only when a poll has caught up, with new disputes and progress of open ones', () => {
    const world = new MockDisputeWorld({ seed: 5, initialDisputes: 10, live: true, now });
    let { cursor } = listAll(world, null, 100);
    expect(world.account(account).head).toBe(10);
    const seen: NormalizedDispute[] = [];
    for (let poll = 0; poll < 40; poll++) {
      const listed = listAll(world, cursor, 100);
      seen.push(...listed.pages.flatMap((page) => page.disputes));
      cursor = listed.cursor;
    }
    const states = new Set(seen.map((dispute) => dispute.state));
    expect(world.account(account).head).toBeGreaterThan(20);
    expect(states).toContain('needs_response');
    expect([...states].some((state) => state === 'won' || state === 'lost')).toBe(true);
  });

  it('replays its steps to reach a cursor another process (or this one, before a restart) gave out', () => {
    const first = new MockDisputeWorld({ seed: 5, initialDisputes: 10, live: true, now });
    let cursor: string | null = null;
    for (let poll = 0; poll < 30; poll++) cursor = listAll(first, cursor, 100).cursor;

    const restarted = new MockDisputeWorld({ seed: 5, initialDisputes: 10, live: true, now });
    expect(restarted.account(account).list(cursor, 100)).toEqual(first.account(account).list(cursor, 100));
    expect(restarted.account(account).disputes()).toEqual(first.account(account).disputes());
  });
});
