import { deleteFile } from '../../../features/files/files.js';
import { deletedFileObject } from '../../../features/files/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { fileIdParameter } from '../../inputs/params.js';

export const deleteFileEndpoint = defineEndpoint({
  method: 'delete',
  path: '/files/:id',
  params: { id: fileIdParameter },
  docs: {
    operationId: 'deleteFile',
    summary: 'Delete a file and its bytes, unless a dispute not yet decided names it',
    success: { 200: 'Deleted.' },
    returns: 'deletedFile',
    errors: ['file_not_found'],
  },
  async handle({ caller, params, deps }) {
    const file = await deleteFile({ db: deps.db, storage: deps.fileStorage }, caller, params.id);
    return { status: 200, body: deletedFileObject(file) };
  },
});
