import type { Request, Response } from 'express';
import { z } from 'zod';
import { fileLinkPath } from '../../../documents/links.js';
import { ApiError } from '../../../domain/errors.js';
import { fileContentTypes } from '../../../domain/evidence-files.js';
import { loadLinkedFile } from '../../../features/responses/files.js';
import type { AppDeps, KeylessRoute } from '../../endpoint.js';
import { attachmentDisposition } from './contents.js';

/**
 * GET /v1/files/:id/download?expires=…&signature=…: an evidence file behind a link of a response package
 * (`files[].url`), for the merchant to upload in a processor's portal. As with documents, the signed link
 * is the credential (no API key), a link altered in any part, or past its expiry, gets 403 `invalid_link`,
 * and a document's link does not open a file. The file is served as `GET /v1/files/:id/contents` serves
 * it: an attachment, never shown inline or sniffed, so a browser saves it rather than rendering it here.
 */
export function downloadFile(deps: Pick<AppDeps, 'db' | 'fileStorage' | 'links'>) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const query = req.query as Record<string, unknown>;
    const check = deps.links.checkFile(id, query.expires, query.signature);
    if (check === 'expired') throw new ApiError('invalid_link', 'This file link has expired.');
    if (check === 'invalid') throw new ApiError('invalid_link', 'This file link is not valid.');
    const found = await loadLinkedFile(deps.db, deps.fileStorage, id);
    if (!found) throw new ApiError('not_found', 'No such file.');
    res
      .status(200)
      .type(fileContentTypes[found.type])
      .setHeader('Content-Disposition', attachmentDisposition(found.filename))
      .setHeader('X-Content-Type-Options', 'nosniff')
      // Personal data behind a capability link: no shared caches, no copies kept by the browser.
      .setHeader('Cache-Control', 'private, no-store')
      .send(found.bytes);
  };
}

/** Its documentation: the signature checks the link whole (documents/links.ts), no schema does. */
export const downloadFileRoute: KeylessRoute = {
  method: 'get',
  path: fileLinkPath(':id'),
  docs: {
    operationId: 'downloadFile',
    summary: 'An evidence file behind a response package link; the signed link is the credential, no key',
    success: { 200: 'The file, as an attachment.' },
    returns: { description: 'The file as it was uploaded.', mediaType: Object.values(fileContentTypes) },
    errors: ['invalid_link', 'not_found'],
  },
  params: { id: z.string().meta({ description: 'A `file_…` id.' }) },
  query: z.object({ expires: z.string(), signature: z.string() }),
};
