import { z } from 'zod';
import { maxFileBytes } from '../../../domain/evidence-files.js';
import { type Upload, uploadFile } from '../../../features/files/files.js';
import { fileObject } from '../../../features/files/objects.js';
import { defineEndpoint } from '../../endpoint.js';

/** What middleware/upload.ts puts under the file part's name: never a value a client can write. */
const uploaded = z.custom<Upload>((value) => {
  const upload = value as Partial<Upload> | null;
  return Buffer.isBuffer(upload?.bytes);
}, 'must be a file part');

export const uploadFileInput = z.object({
  purpose: z.enum(['dispute_evidence']).optional(),
  file: uploaded,
});

/** POST /v1/files (docs/api.md, "Uploading"): the one route that takes a multipart body. */
export const uploadFileEndpoint = defineEndpoint({
  method: 'post',
  path: '/files',
  upload: { part: 'file', maxBytes: maxFileBytes },
  input: { body: uploadFileInput },
  docs: {
    operationId: 'uploadFile',
    summary: 'Upload a PDF, PNG or JPEG of at most 5 MB, judged by its bytes',
    success: { 201: 'Stored.' },
    returns: 'file',
    errors: ['invalid_file'],
  },
  async handle({ caller, input, deps }) {
    const file = await uploadFile(
      { db: deps.db, storage: deps.fileStorage, filesMaxBytes: deps.filesMaxBytes },
      caller,
      input.file,
    );
    return { status: 201, body: fileObject(file) };
  },
});
