import { and, count, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { disputes } from '../../src/db/schema/index.js';
import type { ApiResponse, CallOptions, TestApi } from './api.js';
import type { Tenant } from './disputes.js';

/** Requests under an Idempotency-Key and what they answer (docs/api.md, "Idempotent requests"). */

/** `options` for a call with the tenant's test key and `Idempotency-Key: key`. */
export const keyedBy =
  (tenant: Tenant) =>
  (key: string, options: CallOptions = {}): CallOptions => ({
    key: tenant.key,
    ...options,
    headers: { ...options.headers, 'idempotency-key': key },
  });

/** `repeat` is `first` replayed: the same status, content type and body, marked replayed. */
export function expectReplayOf(repeat: ApiResponse, first: ApiResponse): void {
  expect([repeat.status, repeat.text]).toEqual([first.status, first.text]);
  expect(repeat.headers['idempotent-replayed']).toBe('true');
  expect(repeat.headers['content-type']).toBe(first.headers['content-type']);
}

/** The error body of docs/api.md, "Errors", exactly (test mode). */
export const errorAnswer = (url: string, status: number, type: string, message: string) => ({
  url,
  livemode: false,
  error: { status, type, message },
});

/** How many disputes the organisation holds in the mode with this id. */
export async function storedDisputes(api: TestApi, orgId: string, id: string, livemode = false) {
  const [row] = await api.db.db
    .select({ n: count() })
    .from(disputes)
    .where(and(eq(disputes.orgId, orgId), eq(disputes.livemode, livemode), eq(disputes.id, id)));
  return row?.n ?? 0;
}
