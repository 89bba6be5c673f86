import type { DisputeOutcome, Outcome } from '../features/disputes/outcomes.js';
import type { Reply, SuccessStatus } from './endpoint.js';
import { disputeBody } from './serialize.js';

/**
 * The one place a dispute command's outcome becomes an HTTP status (docs/api.md, "Endpoints"): a create
 * answers 201, a submission sent 201, one held or still under way 202, anything else 200.
 */
export const outcomeStatus = {
  created: 201,
  updated: 200,
  queued: 200,
  held: 202,
  submitted: 201,
  in_progress: 202,
  accepted: 200,
  unchanged: 200,
} as const satisfies Record<Outcome, SuccessStatus>;

/** The answer to a dispute command: its outcome's status and the dispute object. */
export function outcomeReply(outcome: DisputeOutcome, url: string): Reply {
  return { status: outcomeStatus[outcome.outcome], body: disputeBody(outcome, url) };
}
