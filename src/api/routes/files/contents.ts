import { fileContentTypes } from '../../../domain/evidence-files.js';
import { fileWithContents } from '../../../features/files/files.js';
import { defineEndpoint } from '../../endpoint.js';
import { fileIdParameter } from '../../inputs/params.js';

/**
 * `attachment` with the file's name (RFC 6266): the name is the uploader's, so it travels only as an
 * RFC 5987 `filename*`, percent-encoded, beside an ASCII stand-in for old clients; no byte of it can end
 * the header or add a parameter.
 */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename.toWellFormed()).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** GET /v1/files/:id/contents: the bytes, as a download no browser runs or sniffs (docs/api.md, "Files"). */
export const fileContentsEndpoint = defineEndpoint({
  method: 'get',
  path: '/files/:id/contents',
  params: { id: fileIdParameter },
  docs: {
    operationId: 'fileContents',
    summary: "A file's bytes, with their content type, as an attachment",
    success: { 200: 'The bytes.' },
    returns: { description: 'The file as it was uploaded.', mediaType: Object.values(fileContentTypes) },
    errors: ['file_not_found'],
  },
  async handle({ caller, params, deps }) {
    const { file, bytes } = await fileWithContents(
      { db: deps.db, storage: deps.fileStorage },
      caller,
      params.id,
    );
    return {
      status: 200,
      bytes,
      headers: {
        'Content-Type': fileContentTypes[file.type],
        'Content-Disposition': attachmentDisposition(file.filename),
        'X-Content-Type-Options': 'nosniff',
        // Evidence is personal data: no shared caches, no copies kept by the browser.
        'Cache-Control': 'private, no-store',
      },
    };
  },
});
