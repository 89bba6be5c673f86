import type { Db } from '../../db/client.js';
import { renderPool, UndrawableImageError } from '../../documents/render-pool.js';
import { type DocumentLimits, documentSizeProblem, measureDocument } from '../../domain/document-size.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { buildEvidenceDocument, evidenceDictionary } from '../../domain/evidence-document.js';
import { fileReferences } from '../../domain/evidence-files.js';
import { type EvidenceWarning, evidenceWarnings } from '../../domain/evidence-warnings.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import type { AttachedFile } from '../../processors/types.js';
import { type DisputeRow, findDispute } from '../disputes/records.js';
import { attachedFiles, MissingFileError } from '../files/attachments.js';
import { postgresFileStorage } from '../files/storage.js';
import type { Tenant } from '../tenancy.js';
import { responseInput } from './documents.js';

/** The response document a submission would send now, and what its processor would cut or refuse. */
export interface Preview {
  dispute: DisputeRow;
  pdf: Buffer;
  pages: number;
  warnings: EvidenceWarning[];
}

export interface PreviewDeps {
  db: Db;
  adapters: AdapterRegistry;
  documentLimits: DocumentLimits;
}

/**
 * Renders the dispute's response document as a submission would now (docs/api.md, "Preview"): its current
 * evidence, template, files and product images, placed by its processor's slots, through the render
 * pool in the organisation's turn, dated `at`. Saves and sends nothing. Refused as a submit would be for a
 * missing template or one that no longer exists, and for a document over the size limits; nothing else
 * a submit checks (required fields, the deadline, the state) stops a preview.
 */
export async function previewResponse(
  deps: PreviewDeps,
  tenant: Tenant,
  id: string,
  at: Date,
): Promise<Preview> {
  const { db } = deps;
  const { dispute, template } = await findDispute(db, tenant, id);
  if (!dispute.template) {
    throw new ApiError('missing_template', 'A template is required to preview the response document.');
  }
  if (!template) throw notFound.template(dispute.template, true);
  const { evidenceLimits: limits, name: processor } = deps.adapters.forDispute(dispute);
  const storage = postgresFileStorage(db);
  const files = await filesOf(db, dispute, template.fields);
  const { input, bytes } = await responseInput(db, storage, {
    dispute,
    template,
    files,
    limits,
    generatedAt: at,
  });
  const problem = documentSizeProblem(measureDocument(input), deps.documentLimits);
  if (problem) throw problem;
  const { pdf, pages } = await renderPool()
    .renderCounted(buildEvidenceDocument(input), dispute.orgId, bytes)
    .catch((error: unknown) => {
      if (error instanceof UndrawableImageError) {
        throw new ApiError(
          'invalid_evidence_files',
          `An evidence image cannot be decoded (${error.reason}); replace the file.`,
        );
      }
      throw error;
    });
  const evidence = evidenceDictionary(input);
  const warnings = evidenceWarnings({
    processor,
    limits,
    evidence,
    files,
    document: { bytes: pdf.length, pages },
  });
  return { dispute, pdf, pages, warnings };
}

/** The files the dispute names, with their bytes; one gone is the dispute's evidence at fault. */
async function filesOf(
  db: Db,
  dispute: DisputeRow,
  templateFields: readonly { key: string; type: string }[],
): Promise<AttachedFile[]> {
  try {
    return await attachedFiles(db, postgresFileStorage(db), dispute, fileReferences(dispute, templateFields));
  } catch (error) {
    if (error instanceof MissingFileError) {
      throw new ApiError('invalid_evidence_files', error.message.replace(/^Not sent: /, ''));
    }
    throw error;
  }
}
