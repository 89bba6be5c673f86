import { closedStates } from './states.js';

/**
 * The pure part of mirroring (copying a processor's disputes into this service's database): which news of
 * an id counts, and what a written change reports.
 */

/**
 * What mirroring reports of one upserted dispute (docs/api.md, "Webhooks"). A new dispute is `dispute.created`;
 * a dispute whose processor-owned data changed is `dispute.updated`, and also `dispute.closed` when the
 * change took it into a closed state. A dispute that arrives already closed is only created: it never
 * entered a closed state while this service watched it. Unchanged disputes are not written, so they
 * report nothing.
 *
 * Every change is `dispute.updated`, closing ones too: endpoints on versions before 2021-09-15 get
 * `dispute.closed` only for disputes this service submitted, and still hear of every other close this way.
 */
export type ChangeEventType = 'dispute.created' | 'dispute.updated' | 'dispute.closed';

export function changeEvents(change: {
  inserted: boolean;
  /** The state before the change; null when unknown. */
  previousState: string | null;
  state: string;
}): ChangeEventType[] {
  if (change.inserted) return ['dispute.created'];
  const closes = isClosed(change.state) && !(change.previousState !== null && isClosed(change.previousState));
  return closes ? ['dispute.updated', 'dispute.closed'] : ['dispute.updated'];
}

const isClosed = (state: string) => (closedStates as readonly string[]).includes(state);

/**
 * The page with one entry per id, the last one listed winning (it is the newer change): a single
 * INSERT ... ON CONFLICT DO UPDATE cannot touch the same row twice.
 */
export function latestById<T extends { id: string }>(page: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const item of page) {
    byId.delete(item.id);
    byId.set(item.id, item);
  }
  return [...byId.values()];
}
