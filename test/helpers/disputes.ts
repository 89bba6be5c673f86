import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { disputes, organisations } from '../../src/db/schema/index.js';
import type { DisputeObject } from '../../src/domain/disputes.js';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import type { RecordedSubmission } from '../../src/processors/mock/adapter.js';
import type { ApiResponse, TestApi } from './api.js';

/** Factories and assertions shared by the dispute endpoint tests (docs/api.md, "The dispute object" to "States and actions"). */

export { disputeAttributes } from './contract.js';

export type Dispute = DisputeObject;
export type Json = Record<string, unknown>;

export interface ErrorBody {
  url: string;
  livemode: boolean;
  error: { status: number; message: string; type: string };
}

export interface Tenant extends CreatedOrganisation {
  /** The test-mode key: most tests work in test mode, where POST /v1/test/disputes is available. */
  key: string;
}

/** Response timestamps: UTC, `YYYY-MM-DDTHH:MM:SS`, no zone (docs/api.md, "Conventions"). */
export const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

const day = 86_400_000;

let sequence = 0;
/** An id unique within the test run, of the characters ids allow. */
export function uniqueId(prefix: string): string {
  sequence += 1;
  return `${prefix}_${sequence}_${randomBytes(4).toString('hex')}`;
}

/** An ISO timestamp `days` from now (negative: in the past), with its zone. */
export function daysFromNow(days: number): string {
  return new Date(Date.now() + days * day).toISOString();
}

/** The required parameters of POST /v1/disputes (docs/api.md, "Endpoints"), with a fresh id. */
export function requiredParams(overrides: Json = {}): Json {
  return {
    id: uniqueId('dp_api'),
    charge: 'ch_standalone_1',
    reason: 'fraudulent',
    charged_at: '2024-01-02T03:04:05Z',
    disputed_at: '2024-02-03T04:05:06Z',
    due_by: daysFromNow(10),
    currency: 'usd',
    amount: 2599,
    ...overrides,
  };
}

/** How the API prints a Date (docs/api.md, "Conventions"). */
export function formatted(date: Date): string {
  return date.toISOString().slice(0, 19);
}

export async function newTenant(api: TestApi): Promise<Tenant> {
  const created = await api.createOrg();
  return { ...created, key: created.test_key };
}

export interface TemplateFieldSpec {
  key: string;
  type: 'text' | 'date' | 'number' | 'amount' | 'url' | 'email' | 'file';
  required?: boolean;
}

/** Creates a template through POST /v1/templates and returns its id. */
export async function createTemplate(
  api: TestApi,
  key: string,
  fields: TemplateFieldSpec[],
  id = uniqueId('tpl'),
): Promise<string> {
  const response = await api.call('POST', '/v1/templates', {
    key,
    json: { id, name: `Template ${id}`, fields: fields.map((field) => ({ required: false, ...field })) },
  });
  expect(response.status, response.text).toBe(201);
  return id;
}

/** The template most tests use: one required text field, `order_id`, and an optional `note`. */
export async function orderTemplate(api: TestApi, key: string): Promise<string> {
  return createTemplate(api, key, [
    { key: 'order_id', type: 'text', required: true },
    { key: 'note', type: 'text' },
  ]);
}

/** A random mock dispute through POST /v1/test/disputes, with the given overrides. */
export async function createTestDispute(api: TestApi, key: string, overrides: Json = {}): Promise<Dispute> {
  // The generator refuses the states only actions reach (a submission in flight, a queued submission), so
  // such a dispute is made as needs_response and moved there in the database (its generated id is unique).
  const { state, ...rest } = overrides;
  const actionOnly = state === 'compiling_evidence' || state === 'queued';
  const response = await api.call<Dispute>('POST', '/v1/test/disputes', {
    key,
    json: actionOnly ? rest : overrides,
  });
  expect(response.status, response.text).toBe(201);
  if (!actionOnly) return response.body;
  const dueBy = response.body.due_by ? new Date(`${response.body.due_by}Z`) : new Date();
  await api.db.db
    .update(disputes)
    .set({ state, submitAt: state === 'queued' ? new Date(dueBy.getTime() - 86_400_000) : null })
    .where(eq(disputes.id, response.body.id));
  return getDispute(api, key, response.body.id);
}

/**
 * A mock dispute in `state` that could be submitted as it stands: it names a template whose required
 * field is filled, and is due in ten days. The evidence is written straight to the database, so that
 * disputes in states that refuse updates are set up the same way as the others.
 */
export async function submittableDispute(
  api: TestApi,
  tenant: Tenant,
  overrides: Json = {},
): Promise<{ dispute: Dispute; template: string }> {
  const template = await orderTemplate(api, tenant.key);
  const created = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10), ...overrides });
  await writeStored(api, tenant, created.id, { template, fields: { order_id: 'A-1001' } });
  return { dispute: await getDispute(api, tenant.key, created.id), template };
}

/** Writes columns of a stored dispute directly (setup the API cannot do: created times, evidence). */
export async function writeStored(
  api: TestApi,
  tenant: Tenant,
  id: string,
  values: Partial<typeof disputes.$inferInsert>,
): Promise<void> {
  await api.db.db
    .update(disputes)
    .set(values)
    .where(and(eq(disputes.orgId, tenant.org), eq(disputes.livemode, false), eq(disputes.id, id)));
}

/** The stored row, for what the object does not show (submit_at). */
export async function readStored(api: TestApi, tenant: Tenant, id: string, livemode = false) {
  const [row] = await api.db.db
    .select()
    .from(disputes)
    .where(and(eq(disputes.orgId, tenant.org), eq(disputes.livemode, livemode), eq(disputes.id, id)));
  if (!row) throw new Error(`no stored dispute ${id}`);
  return row;
}

/** Sets the organisation's default API version; call before the tenant's first request (keys are cached). */
export async function setDefaultVersion(api: TestApi, tenant: Tenant, version: string): Promise<void> {
  await api.db.db.update(organisations).set({ apiVersion: version }).where(eq(organisations.id, tenant.org));
}

export async function getDispute(api: TestApi, key: string, id: string): Promise<Dispute> {
  const response = await api.call<Dispute>('GET', `/v1/disputes/${id}`, { key });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The submissions the mock processor accepted for one dispute. */
export function acceptedSubmissions(api: TestApi, id: string): RecordedSubmission[] {
  return [...api.mock.accepted.values()].filter((recorded) => recorded.request.dispute.id === id);
}

/** Asserts the error body of docs/api.md, "Errors" exactly: `{url, livemode, error: {status, message, type}}`. */
export function expectError(
  response: ApiResponse<unknown>,
  status: number,
  type: string,
  options: { url?: string; livemode?: boolean } = {},
): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: {
      url: options.url ?? expect.any(String),
      livemode: options.livemode ?? false,
      error: { status, type, message: expect.any(String) },
    },
  });
  expect((response.body as ErrorBody).error.message.length).toBeGreaterThan(0);
}

/** GET /v1/disputes in test mode when nothing passes its filters (docs/api.md, "Conventions", Lists). */
export const emptyDisputeList = {
  object: 'list',
  data: [],
  has_more: false,
  livemode: false,
  url: '/v1/disputes',
} as const;

/** A dispute without the attributes that differ between two otherwise identical disputes. */
export function comparable(dispute: Dispute): Json {
  const { id: _id, url: _url, created: _created, updated: _updated, ...rest } = dispute;
  return rest;
}
