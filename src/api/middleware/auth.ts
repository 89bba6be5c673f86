import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { KeyResolver } from '../../features/organisations/authenticate.js';
import type { Principal } from '../../features/tenancy.js';
import type { Budget } from '../../rate-limits.js';
import { byClientAddress, type Subject, spend } from './rate-limit.js';

/**
 * HTTP Basic with the API key as user name; a password, if any, is ignored (docs/api.md, "Conventions").
 * A key this process has resolved lately answers from memory. Any other costs a lookup in Postgres, so its
 * client's address pays a token of `failures` first and gets it back unless the key is refused: an address
 * that has used up its refused keys gets 429 before Postgres is asked (docs/api.md, "Limits").
 */
export function authenticate(keys: KeyResolver, failures: Budget) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = basicUser(req.headers.authorization);
    if (key === null) {
      throw refused(res, 'No API key provided: use HTTP Basic auth with the key as user name.');
    }
    let principal = keys.cached(key);
    if (!principal) {
      const address = byClientAddress(req, res);
      await spend(failures, address, res);
      let resolved: Principal | null | undefined;
      try {
        resolved = await keys.resolve(key);
      } finally {
        // Only a refused key keeps its token: a right one, or a lookup that failed (Postgres away), gives
        // it back, so an outage cannot use up a merchant's address.
        if (resolved !== null) void failures.limiter.charge(address, -1);
      }
      if (!resolved) throw refused(res, 'Invalid API key provided.');
      principal = resolved;
    }
    res.locals.principal = principal;
    next();
  };
}

function refused(res: Response, message: string): ApiError {
  res.setHeader('WWW-Authenticate', 'Basic realm="Rebuttal"');
  return new ApiError('authentication', message);
}

/** The key from `Basic base64(key:password)`: the user name, whatever the password (docs/api.md, "Conventions"). */
function basicUser(header: string | undefined): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  return user.length > 0 ? user : null;
}

export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

/** Requests with a key count against it: an organisation's key of one mode. */
export const byApiKey: Subject = (_req, res) => {
  const { orgId, livemode } = principalOf(res);
  return `${orgId}:${livemode ? 'live' : 'test'}`;
};
