import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * The security headers of every answer (docs/api.md, "Conventions"), by helmet. The API answers JSON,
 * which no page should run, style or frame: the content security policy allows nothing. Pages that need
 * more set their own policy over it (Bull Board: admin/board.ts; a response document: `documentPolicy`).
 */
const everyAnswer = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
  // Only over HTTPS, below: over plain HTTP a browser ignores it anyway.
  strictTransportSecurity: false,
});
const hsts = helmet.strictTransportSecurity({ maxAge: 365 * 86_400, includeSubDomains: false });

export function securityHeaders(req: Request, res: Response, next: NextFunction): void {
  everyAnswer(req, res, (error?: unknown) => {
    if (error) next(error);
    else if (req.secure) hsts(req, res, next);
    else next();
  });
}

/**
 * A response document (a PDF behind a signed link): browsers show PDFs in a viewer of their own, which
 * a `default-src 'none'` blanks in Chrome; it still may not be framed by another site.
 */
export const documentPolicy: RequestHandler = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: helmet.contentSecurityPolicy.dangerouslyDisableDefaultSrc,
    frameAncestors: ["'none'"],
  },
});
