import type { ErrorType } from './errors.js';
import { type ApiVersion, isOn } from './versions.js';

/**
 * The dispute state x action table of docs/api.md, "States and actions", as data. Features ask `decide()` whether an action
 * on an existing dispute may proceed, is held or is refused; no other module answers that. What a
 * permitted action then does in a state (an edit of a queued dispute must leave it submittable, and
 * `queue=false` un-queues it) is the dispute service's.
 */
export const disputeStates = [
  'needs_response',
  'compiling_evidence',
  'submitted',
  'under_review',
  'won',
  'lost',
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
  'response_disabled',
  'charge_refunded',
  'requires_review',
  'accepted',
  'queued',
] as const;
export type DisputeState = (typeof disputeStates)[number];

export const actions = ['update', 'submit', 'queue', 'accept'] as const;
export type Action = (typeof actions)[number];

type Cell =
  | { do: 'proceed' }
  /** Nothing to do: the dispute is already where the action would take it (accept on accepted). */
  | { do: 'unchanged' }
  /** Held for a person (manual review): 202 unless the client forces it. */
  | { do: 'hold_unless_forced' }
  /** An accepted dispute: proceeds before the 2020-02-28 gate, held without force from it on. */
  | { do: 'hold_accepted' }
  | { do: 'refuse'; error: ErrorType };

const proceed: Cell = { do: 'proceed' };
const refuse = (error: ErrorType): Cell => ({ do: 'refuse', error });

const open = { update: proceed, submit: proceed, queue: proceed, accept: proceed };
const inFlight = {
  update: refuse('dispute_uneditable'),
  submit: refuse('dispute_submitted'),
  queue: refuse('dispute_submitted'),
  accept: refuse('dispute_uneditable'),
};
const answered = {
  update: refuse('dispute_uneditable'),
  submit: refuse('dispute_submitted'),
  queue: refuse('dispute_submitted'),
  accept: refuse('dispute_submitted'),
};
const decided = {
  update: refuse('dispute_closed'),
  submit: refuse('dispute_closed'),
  queue: refuse('dispute_closed'),
  accept: refuse('dispute_closed'),
};
const outOfReach = {
  update: refuse('dispute_uneditable'),
  submit: refuse('dispute_uneditable'),
  queue: refuse('dispute_uneditable'),
  accept: refuse('dispute_uneditable'),
};

export const stateTable: Record<DisputeState, Record<Action, Cell>> = {
  needs_response: open,
  warning_needs_response: open,
  queued: open,
  requires_review: {
    update: proceed,
    submit: { do: 'hold_unless_forced' },
    queue: { do: 'hold_unless_forced' },
    accept: proceed,
  },
  accepted: {
    update: proceed,
    submit: { do: 'hold_accepted' },
    queue: { do: 'hold_accepted' },
    accept: { do: 'unchanged' },
  },
  compiling_evidence: inFlight,
  submitted: answered,
  under_review: answered,
  warning_under_review: answered,
  won: decided,
  lost: decided,
  warning_closed: outOfReach,
  charge_refunded: outOfReach,
  response_disabled: outOfReach,
};

export type Decision =
  | { outcome: 'proceed' }
  | { outcome: 'unchanged' }
  | { outcome: 'hold' }
  | { outcome: 'refuse'; error: ErrorType };

export function decide(
  state: DisputeState,
  action: Action,
  context: { force: boolean; version: ApiVersion },
): Decision {
  const cell = stateTable[state][action];
  switch (cell.do) {
    case 'proceed':
      return { outcome: 'proceed' };
    case 'unchanged':
      return { outcome: 'unchanged' };
    case 'refuse':
      return { outcome: 'refuse', error: cell.error };
    case 'hold_unless_forced':
      return context.force ? { outcome: 'proceed' } : { outcome: 'hold' };
    case 'hold_accepted':
      return context.force || !isOn(context.version, 'acceptedNeedsForce')
        ? { outcome: 'proceed' }
        : { outcome: 'hold' };
  }
}

/** The processor's final decisions: entering one sends `dispute.closed`. */
export const closedStates: readonly DisputeState[] = ['won', 'lost', 'charge_refunded', 'warning_closed'];

/**
 * Decided disputes: the processor has ruled, so their evidence will never be sent again. Only these let
 * go of the files they name (docs/api.md, "Reading and deleting"). Not `accepted`: an accepted dispute
 * can still be submitted (with `force`, or before version 2020-02-28).
 */
export const decidedStates: readonly DisputeState[] = closedStates;

/** States the processor decides: mirroring may move a dispute out of a service-local state only into these. */
export const processorOutcomeStates: readonly DisputeState[] = [
  'under_review',
  'warning_under_review',
  ...closedStates,
];

/** States this service moves a dispute into; the processor's view of them is not news (docs/architecture.md, "Mirroring"). */
export const serviceLocalStates: readonly DisputeState[] = [
  'queued',
  'compiling_evidence',
  'submitted',
  'accepted',
  'requires_review',
];

/** Disputes still waiting for someone to answer them: the deadline sweep warns while they are due soon. */
export const dueSoonStates = ['needs_response', 'warning_needs_response', 'requires_review'] as const;

/** Past `due_by` these were never answered; a queued one means its unattended submission did not happen. */
export const overdueStates = [...dueSoonStates, 'queued'] as const;

/**
 * States a prepared submission may still be sent from: waiting on it, or under review already, which is
 * the processor's reaction to it when an earlier call got through but its answer was lost (a timeout).
 * Sent again with the same idempotency key, the processor recognises it.
 */
export const sendableStates: readonly DisputeState[] = [
  'compiling_evidence',
  'under_review',
  'warning_under_review',
];

/**
 * How the outcome statistics count a dispute (docs/api.md, "Statistics"): by the state it is in now. A
 * dispute won and then lost on pre-arbitration is one row, lost now, so it counts once, as lost. Accepted
 * stays apart from lost: the merchant chose not to contest, and no evidence was judged (until the processor
 * rules, which moves the dispute to its outcome). `closed_otherwise`: closed, or out of this service's reach,
 * without a ruling on evidence (an inquiry closed, the charge refunded, responding disabled).
 */
export const statsOutcomes = ['won', 'lost', 'accepted', 'open', 'closed_otherwise'] as const;
export type StatsOutcome = (typeof statsOutcomes)[number];

export const statsOutcomeOf: Record<DisputeState, StatsOutcome> = {
  won: 'won',
  lost: 'lost',
  accepted: 'accepted',
  warning_closed: 'closed_otherwise',
  charge_refunded: 'closed_otherwise',
  response_disabled: 'closed_otherwise',
  needs_response: 'open',
  warning_needs_response: 'open',
  requires_review: 'open',
  queued: 'open',
  compiling_evidence: 'open',
  submitted: 'open',
  under_review: 'open',
  warning_under_review: 'open',
};

/** The states counted as one outcome. */
export const statesOfOutcome = (outcome: StatsOutcome): DisputeState[] =>
  disputeStates.filter((state) => statsOutcomeOf[state] === outcome);
