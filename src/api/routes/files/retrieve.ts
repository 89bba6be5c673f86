import { retrieveFile } from '../../../features/files/files.js';
import { fileObject } from '../../../features/files/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { fileIdParameter } from '../../inputs/params.js';

export const retrieveFileEndpoint = defineEndpoint({
  method: 'get',
  path: '/files/:id',
  params: { id: fileIdParameter },
  docs: {
    operationId: 'retrieveFile',
    summary: 'Retrieve a file object',
    success: { 200: 'The file object.' },
    returns: 'file',
    errors: ['file_not_found'],
  },
  async handle({ caller, params, deps }) {
    return { status: 200, body: fileObject(await retrieveFile(deps.db, caller, params.id)) };
  },
});
