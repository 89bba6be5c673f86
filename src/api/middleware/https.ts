import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';

/**
 * Refuses requests that did not arrive over TLS (docs/api.md, "Conventions"). Behind a TLS-terminating proxy with
 * a TRUST_PROXY it names, express's `req.secure` reads X-Forwarded-Proto; otherwise only the socket counts.
 */
export function requireHttps(req: Request, _res: Response, next: NextFunction): void {
  if (!req.secure) {
    throw new ApiError('insecure_connection', 'Requests must be made over HTTPS.');
  }
  next();
}
