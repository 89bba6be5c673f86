import type { ApiVersion } from '../../domain/versions.js';

/**
 * What the webhook endpoint use cases are asked, as checked values; the API's request schemas
 * (api/inputs/webhook-endpoints.ts) parse requests into these.
 */

export interface CreateEndpointInput {
  url: string;
  /** Event types, or `['*']` for every event, present and future. */
  events: string[];
  api_version?: ApiVersion | undefined;
}

export interface UpdateEndpointInput {
  url?: string | undefined;
  events?: string[] | undefined;
  api_version?: ApiVersion | undefined;
  enabled?: boolean | undefined;
}
