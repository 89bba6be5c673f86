import { type DisputeRecord, toDisputeObject } from '../domain/disputes.js';
import type { TemplateShape } from '../domain/templates.js';

/**
 * The API's own response bodies: a request's dispute object, and lists. The objects the CLI prints too
 * are their features' (features/templates/objects.ts, features/webhooks/objects.ts).
 * See docs/api.md, "The dispute object".
 */
export function disputeBody(found: { dispute: DisputeRecord; template: TemplateShape | null }, url: string) {
  return toDisputeObject(found.dispute, found.template, url);
}

/**
 * The list object as JSON text, around items that are JSON text already (dispute objects come serialized
 * from the DisputeObjectCache): `{object: "list", data, has_more, livemode, url}`, and after `has_more`
 * whatever else the list was asked to include (`extra`: the dispute list's counts).
 */
export function listJson(
  page: { data: string[]; hasMore: boolean },
  livemode: boolean,
  url: string,
  extra?: object,
): string {
  const envelope = JSON.stringify({
    object: 'list',
    data: [],
    has_more: page.hasMore,
    ...extra,
    livemode,
    url,
  });
  return envelope.replace('"data":[]', `"data":[${page.data.join(',')}]`);
}
