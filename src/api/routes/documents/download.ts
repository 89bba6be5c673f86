import type { Request, Response } from 'express';
import { z } from 'zod';
import { documentPath } from '../../../documents/links.js';
import { ApiError } from '../../../domain/errors.js';
import { documentFilename } from '../../../features/responses/documents.js';
import { loadDocumentPdf } from '../../../features/responses/retrieve.js';
import type { AppDeps, KeylessRoute } from '../../endpoint.js';

/**
 * GET /v1/documents/:id?expires=…&signature=…: the PDF behind a `response_url`. The signed link is the
 * credential (no API key), so a processor's upload step or a reviewer's browser can fetch it; a link
 * altered in any part, or past its expiry, gets 403 `invalid_link` and reveals nothing.
 */
export function downloadDocument(deps: Pick<AppDeps, 'db' | 'links'>) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const query = req.query as Record<string, unknown>;
    const check = deps.links.check(id, query.expires, query.signature);
    if (check === 'expired') throw new ApiError('invalid_link', 'This document link has expired.');
    if (check === 'invalid') throw new ApiError('invalid_link', 'This document link is not valid.');
    const found = await loadDocumentPdf(deps.db, id);
    if (!found) throw new ApiError('not_found', 'No such document.');
    res
      .status(200)
      .type('application/pdf')
      .setHeader('Content-Disposition', `inline; filename="${documentFilename(found.disputeId)}"`)
      // Personal data behind a capability link: no shared caches, no copies kept by the browser.
      .setHeader('Cache-Control', 'private, no-store')
      .send(found.pdf);
  };
}

/** Its documentation: the signature checks the link whole (documents/links.ts), no schema does. */
export const downloadDocumentRoute: KeylessRoute = {
  method: 'get',
  path: documentPath(':id'),
  docs: {
    operationId: 'downloadDocument',
    summary: 'The PDF behind a `response_url`; the signed link is the credential, no key',
    success: { 200: 'The response document.' },
    returns: { description: 'The PDF.', mediaType: 'application/pdf' },
    errors: ['invalid_link', 'not_found'],
  },
  params: { id: z.string().meta({ description: 'A `doc_…` id.' }) },
  query: z.object({ expires: z.string(), signature: z.string() }),
};
