import type { NextFunction, Request, Response } from 'express';
import type { Db } from '../../db/client.js';
import { ApiError } from '../../domain/errors.js';
import { show } from '../../domain/values.js';
import { allowsOrigin } from '../../features/organisations/organisations.js';
import { principalOf } from './auth.js';

/**
 * Refuses a request a page of another site made (docs/api.md, "Conventions"): a browser sends an `Origin`
 * header, and may send remembered Basic credentials with a form posted from anywhere. Another site is any
 * origin other than the service's own (PUBLIC_URL's, and the one the request was addressed to) and those
 * the organisation allows (`org settings --allowed-origin`). Requests without `Origin` come from servers,
 * not browsers, and pass. After the key check: the organisation decides.
 */
export function refuseOtherSites(deps: { db: Db; publicUrl?: string | undefined }) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const origin = req.headers.origin;
    if (origin === undefined || ownOrigins(req, deps.publicUrl).includes(origin)) {
      next();
      return;
    }
    if (await allowsOrigin(deps.db, principalOf(res).orgId, origin)) {
      next();
      return;
    }
    throw new ApiError(
      'invalid_request',
      `Requests from another site are refused: Origin ${show(origin)} is not allowed for this organisation.`,
    );
  };
}

/** Only HTTPS requests get here (requireHttps), directly or through a trusted proxy. */
function ownOrigins(req: Request, publicUrl: string | undefined): string[] {
  const addressed = URL.parse(`https://${req.get('host') ?? ''}`)?.origin;
  const configured = publicUrl === undefined ? undefined : URL.parse(publicUrl)?.origin;
  return [addressed, configured].filter((origin) => origin !== undefined);
}
