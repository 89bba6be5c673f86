import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { disputes, documents, submissions } from '../../db/schema/index.js';
import { ApiError } from '../../domain/errors.js';
import { fileReferences } from '../../domain/evidence-files.js';
import { type DisputeRow, findDispute } from '../disputes/records.js';
import type { Tenant } from '../tenancy.js';
import { type ResponseFile, responseFiles } from './files.js';

/**
 * The response package of a dispute (docs/api.md, "Endpoints"): the evidence, PDF and evidence files of its
 * latest submission, whether the processor took it or not, so a merchant can always see what was sent last.
 */
export interface DisputeResponse {
  dispute: DisputeRow;
  documentId: string;
  evidence: Record<string, string | number | boolean>;
  files: ResponseFile[];
}

export async function retrieveResponse(db: Db, tenant: Tenant, id: string): Promise<DisputeResponse> {
  const { dispute } = await findDispute(db, tenant, id);
  const [latest] = await db
    .select({
      id: documents.id,
      evidence: documents.evidence,
      snapshot: submissions.evidence,
      // The template as the document was rendered with it: its `file` fields name files too.
      templateFields: sql<{ key: string; type: string }[] | null>`${documents.input}->'template'->'fields'`,
    })
    .from(documents)
    .innerJoin(submissions, eq(submissions.id, documents.submissionId))
    .where(eq(documents.disputeUid, dispute.uid))
    .orderBy(desc(documents.createdAt))
    .limit(1);
  if (!latest) {
    throw new ApiError('response_not_found', `No response has been generated for dispute '${id}' yet.`);
  }
  const references = fileReferences(latest.snapshot, latest.templateFields ?? []);
  return {
    dispute,
    documentId: latest.id,
    evidence: latest.evidence,
    files: await responseFiles(db, dispute, references),
  };
}

/** A document's PDF with what names it, for the signed download link; undefined when there is none. */
export async function loadDocumentPdf(db: Db, documentId: string) {
  const [found] = await db
    .select({ pdf: documents.pdf, disputeId: disputes.id })
    .from(documents)
    .innerJoin(disputes, eq(disputes.uid, documents.disputeUid))
    .where(eq(documents.id, documentId));
  return found;
}
