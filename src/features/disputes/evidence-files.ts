import type { Tx } from '../../db/client.js';
import { ApiError } from '../../domain/errors.js';
import type { FieldValue } from '../../domain/evidence.js';
import {
  type EvidenceFileEntry,
  fileReferences,
  maxEvidenceFilesBytes,
} from '../../domain/evidence-files.js';
import type { TemplateShape } from '../../domain/templates.js';
import { ownedFiles } from '../files/owned.js';
import type { Tenant } from '../tenancy.js';

/**
 * The files a dispute names, checked where they are saved (docs/api.md, "Files", "On a dispute"): each
 * `evidence_files` entry and each template field of type `file` must name an upload of the dispute's own
 * organisation and mode, and all of them together stay under `maxEvidenceFilesBytes`. Runs in the
 * dispute's transaction, before anything is written, so a refusal changes nothing.
 */
export async function checkNamedFiles(
  tx: Tx,
  tenant: Tenant,
  evidence: { evidenceFiles: EvidenceFileEntry[]; fields: Record<string, FieldValue> },
  template: TemplateShape | null,
  sent: { evidenceFiles: boolean; fields: boolean },
): Promise<void> {
  if (!sent.evidenceFiles && !sent.fields) return;
  const references = fileReferences(evidence, template?.fields ?? []);
  const found = await ownedFiles(
    tx,
    tenant,
    references.map((reference) => reference.file),
  );
  if (sent.evidenceFiles) {
    evidence.evidenceFiles.forEach(({ file }, index) => {
      const where = `Invalid evidence_files.${index}.file`;
      const row = found.get(file);
      if (!row) throw new ApiError('invalid_evidence_files', `${where}: no file with id '${file}'.`);
      if (row.purpose !== 'dispute_evidence') {
        throw new ApiError(
          'invalid_evidence_files',
          `${where}: '${file}' is a product image the service fetched, not an upload.`,
        );
      }
    });
  }
  if (sent.fields) {
    for (const field of template?.fields ?? []) {
      const value = Object.hasOwn(evidence.fields, field.key) ? evidence.fields[field.key] : undefined;
      if (field.type !== 'file' || typeof value !== 'string') continue;
      if (found.get(value)?.purpose !== 'dispute_evidence') {
        throw new ApiError(
          'invalid_fields',
          `Field '${field.key}' must name an uploaded file: no file with id '${value}'.`,
        );
      }
    }
  }
  const total = references.reduce((sum, { file }) => sum + (found.get(file)?.size ?? 0), 0);
  if (total > maxEvidenceFilesBytes) {
    throw new ApiError(
      sent.evidenceFiles ? 'invalid_evidence_files' : 'invalid_fields',
      `The files this dispute names would add up to ${total} bytes; at most ${maxEvidenceFilesBytes} are taken.`,
    );
  }
}
