import type { Tx } from '../db/client.js';
import { events } from '../db/schema/index.js';
import { type DisputeRecord, toDisputeObject } from '../domain/disputes.js';
import type { TemplateShape } from '../domain/templates.js';
import { newId } from '../ids.js';

export const eventTypes = [
  'dispute.created',
  'dispute.updated',
  'dispute.submitted',
  'dispute.closed',
  'dispute.response.generated',
  'dispute.due_soon',
  'dispute.overdue',
  'dispute.submission_failed',
  'test',
] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * Writes an event to the outbox inside the caller's transaction, so the event exists exactly when the
 * change it reports does. The webhook relay delivers it later.
 */
export async function recordDisputeEvent(
  tx: Tx,
  type: EventType,
  dispute: DisputeRecord & { orgId: string; uid: string },
  template: TemplateShape | null,
): Promise<void> {
  await tx.insert(events).values({
    id: newId('event'),
    orgId: dispute.orgId,
    livemode: dispute.livemode,
    type,
    disputeUid: dispute.uid,
    data: toDisputeObject(dispute, template),
  });
}
