import { listFiles } from '../../../features/files/files.js';
import { fileObject } from '../../../features/files/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { pageParams, toPageQuery } from '../../inputs/params.js';
import { listJson } from '../../serialize.js';

export const listFilesEndpoint = defineEndpoint({
  method: 'get',
  path: '/files',
  input: { query: pageParams },
  docs: {
    operationId: 'listFiles',
    summary: 'List files, uploaded and product images, newest first',
    success: { 200: 'A page of files.' },
    returns: 'fileList',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const page = await listFiles(deps.db, caller, toPageQuery(input));
    const data = page.data.map((file) => JSON.stringify(fileObject(file)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
});
