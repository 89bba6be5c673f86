import type { Db } from '../db/client.js';
import { isApiVersion, latestVersion } from '../domain/versions.js';
import { getOrganisationSettings } from '../features/organisations/organisations.js';
import type { Caller } from '../features/tenancy.js';

export type Mode = 'test' | 'live';

/**
 * The organisation in one mode, as the features see a request made with that mode's key (in the
 * organisation's own API version). An unknown organisation fails with `no organisation …`.
 */
export async function callerFor(db: Db, org: string, mode: Mode): Promise<Caller> {
  const settings = await getOrganisationSettings(db, org);
  const version = isApiVersion(settings.api_version) ? settings.api_version : latestVersion;
  return {
    orgId: settings.org,
    livemode: mode === 'live',
    apiVersion: version,
    queueLeadMinutes: Math.round(settings.queue_lead_hours * 60),
    version,
  };
}
