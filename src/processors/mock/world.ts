import { sampleDisputeValues, sampleNetwork } from '../../domain/sample-disputes.js';
import type { DisputeState } from '../../domain/states.js';
import type { AccountReference, DisputePage, ListDisputesRequest, NormalizedDispute } from '../types.js';
import { type SeededRandom, seededRandom, seedOf } from './random.js';

/**
 * The mock processor's side of mirroring: a simulated world of disputes per connected account, listed
 * the way a processor's API lists changes, so that `npm start` shows live mirroring and tests and the
 * bench have data to mirror.
 *
 * Each account's world is seeded from the world's seed and the account's name and mode: its disputes come
 * out the same on every run. Every change stamps the dispute with the next number of the account's
 * `updated` sequence; a listing returns disputes changed after the cursor's number, oldest change first.
 * A live world moves on one step when a poll finds it caught up (the cursor at its newest change):
 * a new dispute arrives, and sometimes a dispute progresses (needs_response to under_review,
 * under_review to won or lost). Steps are seeded too, so a world is a function of how many steps it has
 * taken, and cursors carry that count: a process that meets a cursor from a world further on (another
 * process, or this one before a restart) replays steps until it is there. Dates are laid out by the
 * clock, so they are all that differs between replays.
 */

export interface MockWorldOptions {
  /** Seed of every account's world. Default 1. */
  seed?: number;
  /** Disputes an account's world starts with, spread over the 60 days before it is made. Default 25. */
  initialDisputes?: number;
  /** Whether a caught-up poll moves the world on. Default true; false serves a fixed dataset. */
  live?: boolean;
  /** The clock dates are laid out by. Default Date.now. */
  now?: () => number;
}

const day = 86_400_000;
const { customers, reasons, descriptors, checks } = sampleDisputeValues;
/** A world that has not reached a cursor within this many steps was not the cursor's world: it stops. */
const maxReplaySteps = 100_000;

/** What the initial disputes of a world hold, weighted towards what an account mostly holds. */
const initialStates: readonly DisputeState[] = [
  'needs_response',
  'needs_response',
  'needs_response',
  'under_review',
  'under_review',
  'won',
  'lost',
  'warning_needs_response',
  'warning_closed',
  'charge_refunded',
];

/** Where a processor takes a dispute next, with the chances of each next state. */
const progress: Partial<Record<DisputeState, readonly DisputeState[]>> = {
  needs_response: ['under_review'],
  under_review: ['won', 'won', 'lost'],
  warning_needs_response: ['warning_under_review', 'warning_closed'],
  warning_under_review: ['warning_closed'],
};
const closing = new Set<DisputeState>(['won', 'lost', 'warning_closed', 'charge_refunded']);

interface Entry {
  dispute: NormalizedDispute;
  seq: number;
}

/** One account's disputes as the mock processor holds them. */
export class MockAccountDisputes {
  readonly #random: SeededRandom;
  readonly #now: () => number;
  readonly #live: boolean;
  readonly #entries = new Map<string, Entry>();
  /** Every change in sequence order; an entry is current while its dispute still carries its seq. */
  readonly #log: { seq: number; id: string }[] = [];
  #head = 0;
  #steps = 0;

  constructor(seed: number, options: { initialDisputes: number; live: boolean; now: () => number }) {
    this.#random = seededRandom(seed);
    this.#now = options.now;
    this.#live = options.live;
    const madeAt = this.#now();
    for (let index = 0; index < options.initialDisputes; index++) {
      const disputedAt =
        madeAt - 60 * day + Math.floor(((index + this.#random.next()) * 60 * day) / options.initialDisputes);
      this.add(this.#generate(disputedAt, this.#random.pick(initialStates)));
    }
  }

  /** The newest number of the `updated` sequence. */
  get head(): number {
    return this.#head;
  }

  /** Every dispute as it stands now. */
  disputes(): NormalizedDispute[] {
    return [...this.#entries.values()].map((entry) => ({ ...entry.dispute }));
  }

  /** A new dispute (generated, with `overrides`): what a processor's new chargeback looks like. */
  add(overrides: Partial<NormalizedDispute> = {}): NormalizedDispute {
    const dispute = { ...this.#generate(this.#now(), 'needs_response'), ...overrides };
    if (this.#entries.has(dispute.id)) throw new Error(`mock dispute ${dispute.id} exists already`);
    this.#stamp(dispute);
    return { ...dispute };
  }

  /** A change the processor makes to one of its disputes. */
  change(id: string, changes: Partial<Omit<NormalizedDispute, 'id'>>): NormalizedDispute {
    const entry = this.#entries.get(id);
    if (!entry) throw new Error(`no mock dispute ${id}`);
    const dispute = { ...entry.dispute, ...changes };
    this.#stamp(dispute);
    return { ...dispute };
  }

  /**
   * One step of the simulated processor: a new dispute arrives (the demo's `MOCK_DISPUTE_SECONDS` is the
   * poll interval, so one a poll), and half the time an open dispute progresses too.
   */
  step(): void {
    this.#steps += 1;
    const random = this.#random;
    // Drawn whether or not used, so that every step consumes the same numbers of the stream.
    const [arrives, progresses, choice, next] = [random.next(), random.next(), random.next(), random.next()];
    const fresh = this.#generate(this.#now(), arrives < 0.1 ? 'warning_needs_response' : 'needs_response');
    this.#stamp(fresh);
    if (progresses < 0.5) {
      const open = [...this.#entries.values()].filter((entry) => progress[entry.dispute.state]);
      const entry = open[Math.floor(choice * open.length)];
      const states = entry && progress[entry.dispute.state];
      if (entry && states) {
        const state = states[Math.floor(next * states.length)] as DisputeState;
        this.change(entry.dispute.id, {
          state,
          closedAt: closing.has(state) ? new Date(this.#now()) : entry.dispute.closedAt,
        });
      }
    }
  }

  /**
   * Disputes changed after `cursor`, oldest change first. A cursor is `<seq>.<steps>`: the last change
   * listed, and how many steps the world had taken then, which a world that has taken fewer replays.
   */
  list(cursor: string | null, limit: number): DisputePage {
    const [after, steps] = parseCursor(cursor);
    if (this.#live) {
      const replayUntil = Math.min(steps, this.#steps + maxReplaySteps);
      while (this.#steps < replayUntil) this.step();
      if (after >= this.#head) this.step();
    }
    const disputes: NormalizedDispute[] = [];
    let last = after;
    let hasMore = false;
    for (let index = this.#firstAfter(after); index < this.#log.length; index++) {
      const { seq, id } = this.#log[index] as { seq: number; id: string };
      const entry = this.#entries.get(id);
      if (entry?.seq !== seq) continue;
      if (disputes.length === limit) {
        hasMore = true;
        break;
      }
      disputes.push({ ...entry.dispute });
      last = seq;
    }
    const nextCursor = disputes.length > 0 || cursor !== null ? `${last}.${this.#steps}` : null;
    return { disputes, nextCursor, hasMore };
  }

  #stamp(dispute: NormalizedDispute): void {
    this.#head += 1;
    this.#entries.set(dispute.id, { dispute, seq: this.#head });
    this.#log.push({ seq: this.#head, id: dispute.id });
  }

  /** Index of the first log entry with a seq above `after` (the log is in seq order). */
  #firstAfter(after: number): number {
    let low = 0;
    let high = this.#log.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#log[middle]?.seq ?? 0) <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #generate(disputedAt: number, state: DisputeState): NormalizedDispute {
    const random = this.#random;
    const charge = sampleCharge(random);
    const dueBy = disputedAt + random.int(7, 21) * day;
    // A dispute past its deadline without an answer has been decided: lost.
    const overdue = dueBy < this.#now() && (state === 'needs_response' || state === 'warning_needs_response');
    const settled = overdue ? (state === 'needs_response' ? 'lost' : 'warning_closed') : state;
    const reason = random.pick(reasons);
    return {
      id: `dp_mock_${random.token(20)}`,
      resolution: null,
      compellingEvidenceProcessorStatus: null,
      state: settled,
      reason,
      kind: 'chargeback',
      chargedAt: new Date(disputedAt - random.int(20, 60) * day),
      disputedAt: new Date(disputedAt),
      dueBy: new Date(dueBy),
      closedAt: closing.has(settled) ? new Date(Math.min(dueBy, this.#now())) : null,
      ...charge,
      // Chosen by the amount, not drawn: the seeded stream, and so every world, stays as it was.
      ...sampleNetwork(reason, charge.amount),
      // The mock processor speaks this service's states; it has no word of its own.
      processorStatus: null,
    };
  }
}

/**
 * The charge behind a realistic dispute, with its customer and card checks, from the sample values of
 * test disputes (features/disputes/test-mode.ts). The bench's seeded data uses it too.
 */
export function sampleCharge(random: SeededRandom) {
  const [name, email] = random.pick(customers);
  const amount = random.int(5, 500) * 100 + random.pick([0, 49, 99]);
  const fee = 1500;
  return {
    charge: `ch_${random.token(24)}`,
    isChargeRefundable: false,
    amount,
    currency: 'usd',
    fee,
    reversalAmount: amount,
    reversalTotal: amount + fee,
    reversalCurrency: 'usd',
    customer: `cus_${random.token(14)}`,
    customerName: name,
    customerEmail: email,
    customerPurchaseIp: `203.0.113.${random.int(1, 255)}`,
    addressZip: String(random.int(10000, 99999)),
    addressLine1Check: random.pick(checks),
    addressZipCheck: random.pick(checks),
    cvcCheck: random.pick(checks),
    statementDescriptor: random.pick(descriptors),
  } satisfies Partial<NormalizedDispute>;
}

function parseCursor(cursor: string | null): [after: number, steps: number] {
  if (cursor === null) return [0, 0];
  const [after, steps] = cursor.split('.').map((part) => Number.parseInt(part, 10));
  if (!Number.isSafeInteger(after) || !Number.isSafeInteger(steps) || (after as number) < 0) {
    throw new Error(`not a mock cursor: '${cursor}'`);
  }
  return [after as number, steps as number];
}

/** The mock processor's disputes, one world per connected account, made at the account's first listing. */
export class MockDisputeWorld {
  readonly #options: Required<MockWorldOptions>;
  readonly #accounts = new Map<string, MockAccountDisputes>();

  constructor(options: MockWorldOptions = {}) {
    this.#options = { seed: 1, initialDisputes: 25, live: true, now: Date.now, ...options };
  }

  /** The world of one account (made now if this is its first mention). */
  account(account: AccountReference): MockAccountDisputes {
    let world = this.#accounts.get(account.uid);
    if (!world) {
      const { seed, initialDisputes, live, now } = this.#options;
      world = new MockAccountDisputes(seedOf(seed, account.livemode, account.id), {
        initialDisputes,
        live,
        now,
      });
      this.#accounts.set(account.uid, world);
    }
    return world;
  }

  async listDisputes(request: ListDisputesRequest): Promise<DisputePage> {
    return this.account(request.connection.account).list(request.cursor, request.limit);
  }
}
