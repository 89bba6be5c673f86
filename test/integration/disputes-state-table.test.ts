import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  type Dispute,
  daysFromNow,
  expectError,
  getDispute,
  type Json,
  newTenant,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';

/**
 * The state x action table of docs/api.md, "States and actions", over HTTP. Every dispute starts submittable (a template
 * with its required field filled, due in ten days), so that only the state decides the answer.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const states = [
  'needs_response',
  'warning_needs_response',
  'queued',
  'requires_review',
  'accepted',
  'compiling_evidence',
  'submitted',
  'under_review',
  'warning_under_review',
  'won',
  'lost',
  'warning_closed',
  'charge_refunded',
  'response_disabled',
] as const;
type State = (typeof states)[number];

type Action = 'update' | 'submit' | 'queue' | 'accept';

/** What an action answers: a status and the state it leaves, or a 400 with an error type. */
type Expected = { status: 200 | 201 | 202; state: State | 'submitted' } | { error: string };

const ok = (status: 200 | 201 | 202, state: State): Expected => ({ status, state });
const refused = (error: string): Expected => ({ error });
const row = (error: string) => ({ update: error, submit: error, queue: error, accept: error });

/**
 * docs/api.md, "States and actions" under the latest version (the organisation default), without force. The contract
 * names no status for queueing; the service answers 200 (nothing is submitted yet).
 */
const table: Record<State, Record<Action, Expected>> = {
  needs_response: {
    update: ok(200, 'needs_response'),
    submit: ok(201, 'submitted'),
    queue: ok(200, 'queued'),
    accept: ok(200, 'accepted'),
  },
  warning_needs_response: {
    update: ok(200, 'warning_needs_response'),
    submit: ok(201, 'submitted'),
    queue: ok(200, 'queued'),
    accept: ok(200, 'accepted'),
  },
  queued: {
    update: ok(200, 'queued'),
    submit: ok(201, 'submitted'),
    queue: ok(200, 'queued'),
    accept: ok(200, 'accepted'),
  },
  requires_review: {
    update: ok(200, 'requires_review'),
    submit: ok(202, 'requires_review'),
    queue: ok(202, 'requires_review'),
    accept: ok(200, 'accepted'),
  },
  accepted: {
    update: ok(200, 'accepted'),
    submit: ok(202, 'accepted'),
    queue: ok(202, 'accepted'),
    accept: ok(200, 'accepted'),
  },
  compiling_evidence: {
    update: refused('dispute_uneditable'),
    submit: refused('dispute_submitted'),
    queue: refused('dispute_submitted'),
    accept: refused('dispute_uneditable'),
  },
  ...Object.fromEntries(
    (['submitted', 'under_review', 'warning_under_review'] as const).map((state) => [
      state,
      {
        update: refused('dispute_uneditable'),
        submit: refused('dispute_submitted'),
        queue: refused('dispute_submitted'),
        accept: refused('dispute_submitted'),
      },
    ]),
  ),
  ...Object.fromEntries(
    (['won', 'lost'] as const).map((state) => [
      state,
      Object.fromEntries(
        Object.entries(row('dispute_closed')).map(([action, error]) => [action, refused(error)]),
      ),
    ]),
  ),
  ...Object.fromEntries(
    (['warning_closed', 'charge_refunded', 'response_disabled'] as const).map((state) => [
      state,
      Object.fromEntries(
        Object.entries(row('dispute_uneditable')).map(([action, error]) => [action, refused(error)]),
      ),
    ]),
  ),
} as Record<State, Record<Action, Expected>>;

/** With force=true, held disputes proceed; refusals stay refusals (force bypasses rules, not the table). */
function forced(state: State, action: 'submit' | 'queue'): Expected {
  const cell = table[state][action];
  if ('error' in cell || cell.status !== 202) return cell;
  return action === 'submit' ? ok(201, 'submitted') : ok(200, 'queued');
}

function send(id: string, action: Action, extra: Json = {}, headers?: Record<string, string>) {
  const options = { key: tenant.key, ...(headers && { headers }) };
  switch (action) {
    case 'update':
      return api.call<Dispute>('PUT', `/v1/disputes/${id}`, {
        ...options,
        json: { fields: { note: 'edited' }, ...extra },
      });
    case 'submit':
      return api.call<Dispute>('POST', `/v1/disputes/${id}/submit`, { ...options, json: { ...extra } });
    case 'queue':
      return api.call<Dispute>('POST', `/v1/disputes/${id}/submit`, {
        ...options,
        json: { queue: true, ...extra },
      });
    case 'accept':
      return api.call<Dispute>('POST', `/v1/disputes/${id}/accept`, { ...options, json: { ...extra } });
  }
}

async function check(
  state: State,
  action: Action,
  expected: Expected,
  options: { extra?: Json; headers?: Record<string, string>; dueBy?: string } = {},
) {
  const { dispute } = await submittableDispute(api, tenant, {
    state,
    ...(options.dueBy !== undefined && { due_by: options.dueBy }),
  });
  const calls = api.mock.calls;
  const response = await send(dispute.id, action, options.extra, options.headers);
  if ('error' in expected) {
    expectError(response, 400, expected.error, { url: expect.stringMatching(`^/v1/disputes/${dispute.id}`) });
    // A refused action changes nothing. Submit-time checks (overdue) come after the parameters are
    // saved (docs/api.md, "Endpoints"); with none sent only `updated` may move.
    const after = await getDispute(api, tenant.key, dispute.id);
    expect(after).toEqual(
      expected.error === 'dispute_overdue' ? { ...dispute, updated: expect.any(String) } : dispute,
    );
    expect(api.mock.calls).toBe(calls);
    return;
  }
  expect({ status: response.status, state: response.body.state }).toEqual(expected);
  expect((await getDispute(api, tenant.key, dispute.id)).state).toBe(expected.state);
  expect(api.mock.calls - calls).toBe(expected.state === 'submitted' ? 1 : 0);
  if (action === 'update') expect(response.body.fields).toMatchObject({ note: 'edited' });
}

const describeCell = (expected: Expected) =>
  'error' in expected ? `400 ${expected.error}` : `${expected.status} -> ${expected.state}`;

const cells = states.flatMap((state) =>
  (['update', 'submit', 'queue', 'accept'] as const).map(
    (action) => [state, action, describeCell(table[state][action]), table[state][action]] as const,
  ),
);

describe('state x action (docs/api.md, "States and actions"), latest version, no force', () => {
  it('covers all 14 states', () => {
    expect(Object.keys(table).sort()).toEqual([...states].sort());
  });

  it.each(cells)('%s: %s answers %s', async (state, action, _, expected) => {
    await check(state, action, expected);
  });
});

describe('state x action with force=true', () => {
  const forcedCells = states.flatMap((state) =>
    (['submit', 'queue'] as const).map(
      (action) => [state, action, describeCell(forced(state, action))] as const,
    ),
  );
  it.each(forcedCells)('%s: %s with force=true answers %s', async (state, action) => {
    await check(state, action, forced(state, action), { extra: { force: true } });
  });
});

describe('accepted disputes before the 2020-02-28 gate', () => {
  it.each([
    ['2016-03-05', 'submit', ok(201, 'submitted')],
    ['2017-10-30', 'submit', ok(201, 'submitted')],
    ['2017-10-30', 'queue', ok(200, 'queued')],
    ['2020-02-28', 'submit', ok(202, 'accepted')],
    ['2020-02-28', 'queue', ok(202, 'accepted')],
  ] as const)('Service-Version %s: %s answers as the gate says', async (version, action, expected) => {
    await check('accepted', action, expected, { headers: { 'Service-Version': version } });
  });
});

describe('overdue disputes', () => {
  const overdue = daysFromNow(-1);
  it.each([
    ['needs_response', 'submit'],
    ['needs_response', 'queue'],
    ['warning_needs_response', 'submit'],
    ['warning_needs_response', 'queue'],
    ['queued', 'submit'],
    ['queued', 'queue'],
  ] as const)('%s: %s answers 400 dispute_overdue', async (state, action) => {
    await check(state, action, refused('dispute_overdue'), { dueBy: overdue });
  });

  it.each([
    ['requires_review', 'submit'],
    ['requires_review', 'queue'],
    ['accepted', 'submit'],
  ] as const)('%s: %s with force=true answers 400 dispute_overdue', async (state, action) => {
    await check(state, action, refused('dispute_overdue'), { dueBy: overdue, extra: { force: true } });
  });

  it.each([
    ['needs_response', 'update', ok(200, 'needs_response')],
    ['needs_response', 'accept', ok(200, 'accepted')],
  ] as const)('%s: %s still works (%s)', async (state, action, expected) => {
    await check(state, action, expected, { dueBy: overdue });
  });
});
