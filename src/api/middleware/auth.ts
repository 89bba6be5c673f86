import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { KeyResolver } from '../../features/organisations/authenticate.js';
import type { Principal } from '../../features/tenancy.js';

/** HTTP Basic with the API key as user name and an empty password (docs/api.md, "Conventions"). */
export function authenticate(keys: KeyResolver) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = basicUser(req.headers.authorization);
    res.setHeader('WWW-Authenticate', 'Basic realm="Rebuttal"');
    if (key === null) {
      throw new ApiError(
        'authentication',
        'No API key provided: use HTTP Basic auth with the key as user name.',
      );
    }
    const principal = await keys.resolve(key);
    if (!principal) throw new ApiError('authentication', 'Invalid API key provided.');
    res.removeHeader('WWW-Authenticate');
    res.locals.principal = principal;
    next();
  };
}

/** The key from `Basic base64(key:)`; the password must be empty (docs/api.md, "Conventions"), else no key. */
function basicUser(header: string | undefined): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  return user.length > 0 && password.length === 0 ? user : null;
}

export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}
