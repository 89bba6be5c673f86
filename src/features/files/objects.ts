import { formatTimestamp } from '../../domain/disputes.js';
import type { FileRow } from './records.js';

/** The file object as the API answers it (docs/api.md, "The file object"). */

/** A file's `url` is always its own path, the upload's answer included: where to read it again. */
const filePath = (id: string) => `/v1/files/${id}`;

export function fileObject(file: FileRow) {
  return {
    object: 'file' as const,
    id: file.id,
    filename: file.filename,
    type: file.type,
    purpose: file.purpose,
    size: file.size,
    pages: file.pages,
    created: formatTimestamp(file.createdAt),
    livemode: file.livemode,
    url: filePath(file.id),
  };
}

export function deletedFileObject(file: FileRow) {
  return {
    object: 'file' as const,
    id: file.id,
    deleted: true as const,
    livemode: file.livemode,
    url: filePath(file.id),
  };
}
