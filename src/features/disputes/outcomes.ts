import type { DisputeRow, TemplateRow } from './records.js';

/**
 * What a dispute command did, in the dispute's terms, with the dispute as it left it. The API answers
 * each outcome with its status (docs/api.md, "Endpoints"); the features never name one.
 */

/**
 * `held`: a submit or queue the state table or an accept rule held; `in_progress`: a submission whose
 * processor call outlived the wait; `unchanged`: an accept of an accepted dispute.
 */
export type Outcome =
  | 'created'
  | 'updated'
  | 'queued'
  | 'held'
  | 'submitted'
  | 'in_progress'
  | 'accepted'
  | 'unchanged';

export interface DisputeOutcome {
  outcome: Outcome;
  dispute: DisputeRow;
  template: TemplateRow | null;
}
