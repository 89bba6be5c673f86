import { describe, expect, it } from 'vitest';
import {
  type Action,
  actions,
  type Decision,
  type DisputeState,
  decide,
  decidedStates,
  disputeStates,
} from '../../src/domain/states.js';
import type { ApiVersion } from '../../src/domain/versions.js';

/**
 * The state x action table of docs/api.md, "States and actions", written out here from the contract (not from states.ts) so a
 * wrong cell in the module fails a test. Each cell is a function of (force, version) because two rows depend
 * on them: requires_review (force) and accepted (force and the 2020-02-28 gate).
 */
type Context = { force: boolean; version: ApiVersion };
type Expected = (context: Context) => Decision;

const ok: Expected = () => ({ outcome: 'proceed' });
const unchanged: Expected = () => ({ outcome: 'unchanged' });
const refused =
  (error: Extract<Decision, { outcome: 'refuse' }>['error']): Expected =>
  () => ({ outcome: 'refuse', error });
/** requires_review: submit and queue need force=true, else 202 and the dispute is unchanged. */
const heldUnlessForced: Expected = ({ force }) => (force ? { outcome: 'proceed' } : { outcome: 'hold' });
/** accepted: before 2020-02-28 it submits normally; from it on only with force=true, else 202. */
const acceptedGate: Expected = ({ force, version }) =>
  force || version < '2020-02-28' ? { outcome: 'proceed' } : { outcome: 'hold' };

const row = (update: Expected, submit: Expected, queue: Expected, accept: Expected) => ({
  update,
  submit,
  queue,
  accept,
});

const openRow = row(ok, ok, ok, ok);

const contract: Record<DisputeState, Record<Action, Expected>> = {
  needs_response: openRow,
  warning_needs_response: openRow,
  queued: openRow,
  requires_review: row(ok, heldUnlessForced, heldUnlessForced, ok),
  accepted: row(ok, acceptedGate, acceptedGate, unchanged),
  compiling_evidence: row(
    refused('dispute_uneditable'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
    refused('dispute_uneditable'),
  ),
  submitted: row(
    refused('dispute_uneditable'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
  ),
  under_review: row(
    refused('dispute_uneditable'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
  ),
  warning_under_review: row(
    refused('dispute_uneditable'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
    refused('dispute_submitted'),
  ),
  won: row(
    refused('dispute_closed'),
    refused('dispute_closed'),
    refused('dispute_closed'),
    refused('dispute_closed'),
  ),
  lost: row(
    refused('dispute_closed'),
    refused('dispute_closed'),
    refused('dispute_closed'),
    refused('dispute_closed'),
  ),
  warning_closed: row(
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
  ),
  charge_refunded: row(
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
  ),
  response_disabled: row(
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
    refused('dispute_uneditable'),
  ),
};

const contractStates = [
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

const versions: ApiVersion[] = ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15'];

function describeDecision(decision: Decision): string {
  switch (decision.outcome) {
    case 'proceed':
      return 'proceeds';
    case 'unchanged':
      return 'leaves it unchanged';
    case 'hold':
      return 'is held (202)';
    case 'refuse':
      return `is refused with 400 ${decision.error}`;
  }
}

const cells = contractStates.flatMap((state) =>
  actions.flatMap((action) =>
    [false, true].flatMap((force) =>
      versions.map((version) => {
        const expected = contract[state][action]({ force, version });
        return {
          name: `${action} on a ${state} dispute (force=${force}, version ${version}) ${describeDecision(expected)}`,
          state,
          action,
          force,
          version,
          expected,
        };
      }),
    ),
  ),
);

describe('decide: every cell of the docs/api.md, "States and actions" table', () => {
  it('knows exactly the 14 states and 4 actions of the contract', () => {
    expect([...disputeStates].sort()).toEqual([...contractStates].sort());
    expect([...actions].sort()).toEqual(['accept', 'queue', 'submit', 'update']);
    expect(cells).toHaveLength(14 * 4 * 2 * 4);
  });

  it.each(cells)('$name', ({ state, action, force, version, expected }) => {
    expect(decide(state, action, { force, version })).toEqual(expected);
  });
});

describe('decide: the rows that depend on force and version', () => {
  it('submit on an accepted dispute before 2020-02-28 proceeds', () => {
    expect(decide('accepted', 'submit', { force: false, version: '2017-10-30' })).toEqual({
      outcome: 'proceed',
    });
  });

  it('submit on an accepted dispute from 2020-02-28 is held without force', () => {
    expect(decide('accepted', 'submit', { force: false, version: '2020-02-28' })).toEqual({
      outcome: 'hold',
    });
  });

  it('submit on an accepted dispute from 2020-02-28 proceeds with force=true', () => {
    expect(decide('accepted', 'submit', { force: true, version: '2020-02-28' })).toEqual({
      outcome: 'proceed',
    });
  });

  it('queue on an accepted dispute before 2020-02-28 proceeds', () => {
    expect(decide('accepted', 'queue', { force: false, version: '2017-10-30' })).toEqual({
      outcome: 'proceed',
    });
  });

  it('queue on an accepted dispute from 2020-02-28 is held without force', () => {
    expect(decide('accepted', 'queue', { force: false, version: '2021-09-15' })).toEqual({ outcome: 'hold' });
  });

  it('accept on an accepted dispute changes nothing, whatever the version or force', () => {
    for (const version of versions) {
      for (const force of [false, true]) {
        expect(decide('accepted', 'accept', { force, version })).toEqual({ outcome: 'unchanged' });
      }
    }
  });

  it('submit on a requires_review dispute is held without force on every version', () => {
    for (const version of versions) {
      expect(decide('requires_review', 'submit', { force: false, version })).toEqual({ outcome: 'hold' });
    }
  });

  it('submit and queue on a requires_review dispute proceed with force=true', () => {
    expect(decide('requires_review', 'submit', { force: true, version: '2016-03-05' })).toEqual({
      outcome: 'proceed',
    });
    expect(decide('requires_review', 'queue', { force: true, version: '2021-09-15' })).toEqual({
      outcome: 'proceed',
    });
  });

  it('force does not unlock a closed, submitted or out-of-reach dispute', () => {
    expect(decide('won', 'submit', { force: true, version: '2021-09-15' })).toEqual({
      outcome: 'refuse',
      error: 'dispute_closed',
    });
    expect(decide('submitted', 'submit', { force: true, version: '2021-09-15' })).toEqual({
      outcome: 'refuse',
      error: 'dispute_submitted',
    });
    expect(decide('charge_refunded', 'update', { force: true, version: '2021-09-15' })).toEqual({
      outcome: 'refuse',
      error: 'dispute_uneditable',
    });
  });
});

describe('decided states (docs/api.md, "Reading and deleting")', () => {
  it('are won, lost, warning_closed and charge_refunded (not accepted, which may still be submitted): only these let go of their files', () => {
    expect([...decidedStates].sort()).toEqual(['charge_refunded', 'lost', 'warning_closed', 'won']);
  });
});
