import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import { type ApiVersion, apiVersions, isApiVersion } from '../../domain/versions.js';
import { principalOf } from './auth.js';

/**
 * The request's API version: `Service-Version`, or its alias `Chargehound-Version` (so the original
 * interface's client libraries work unchanged), else the organisation's default (docs/api.md, "Versions").
 */
export function resolveVersion(req: Request, res: Response, next: NextFunction): void {
  const sent = req.headers['service-version'] ?? req.headers['chargehound-version'];
  if (sent !== undefined && (typeof sent !== 'string' || !isApiVersion(sent))) {
    throw new ApiError(
      'invalid_request',
      `Unknown API version '${String(sent)}'; known versions: ${apiVersions.join(', ')}.`,
    );
  }
  const version: ApiVersion = sent ?? principalOf(res).apiVersion;
  res.locals.version = version;
  res.setHeader('Service-Version', version);
  next();
}

export function versionOf(res: Response): ApiVersion {
  return res.locals.version as ApiVersion;
}
