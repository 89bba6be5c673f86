/**
 * API versions and the behaviour gates of docs/api.md, "Versions". This is the only module that compares
 * version strings: everything else asks `isOn(version, gate)`.
 */
export const apiVersions = ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15'] as const;
export type ApiVersion = (typeof apiVersions)[number];

export const latestVersion: ApiVersion = '2021-09-15';

export const gates = {
  /**
   * Legacy parameter names (customer_name, user_id, external_*) are gone, and so are the payloads' legacy
   * reference names (dispute_id, external_charge, user_id), which older versions get beside today's.
   */
  modernNames: '2017-10-30',
  /** Accept rules also run on update and submit; an accepted dispute submits only with force. */
  acceptedNeedsForce: '2020-02-28',
  /** dispute.closed is sent for every closed dispute, not only those this service submitted. */
  closedForEveryDispute: '2021-09-15',
} as const satisfies Record<string, ApiVersion>;

export type Gate = keyof typeof gates;

export function isApiVersion(value: string): value is ApiVersion {
  return (apiVersions as readonly string[]).includes(value);
}

/** True when `version` is at or after the date that turns `gate` on. ISO dates compare as strings. */
export function isOn(version: ApiVersion, gate: Gate): boolean {
  return version >= gates[gate];
}

/** What a response object or webhook says a dispute is about, under the names of its version. */
export interface DisputeReferences {
  dispute: string | null;
  charge: string | null;
  account_id: string | null;
}

/**
 * Before 2017-10-30 the same three were `dispute_id`, `external_charge` and `user_id`. Older versions get
 * both spellings, so that a handler written for either name works (docs/api.md, "Versions").
 */
export function referenceNames(version: ApiVersion, references: DisputeReferences) {
  if (isOn(version, 'modernNames')) return references;
  return {
    dispute_id: references.dispute,
    external_charge: references.charge,
    user_id: references.account_id,
    ...references,
  };
}
