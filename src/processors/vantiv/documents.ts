import { fileContentTypes } from '../../domain/evidence-files.js';
import type { HttpAnswer, ProcessorHttp } from '../http.js';
import { checkEvidenceLimits, type SentFile } from '../slot-uploads.js';
import { type AttachedFile, ProcessorError } from '../types.js';
import { documentIdFor, fileDocumentId } from './evidence.js';
import {
  amexMaxFileBytes,
  type ChargebackCase,
  documentCodes,
  evidenceLimits,
  networkOf,
} from './mapping.js';
import { documentResponse, readXml } from './xml.js';

/**
 * The documents a represent carries, uploaded to the case through the document API
 * (`services/chargebacks/upload/{caseId}/{documentId}`): each evidence file Vantiv takes, then the
 * response PDF, each under an id from the submission's key, so that a retry recognises what an attempt
 * whose answer was lost already uploaded (Vantiv answers 005 for an id the case holds) and never uploads
 * it twice.
 */

const processor = 'vantiv';

/**
 * Uploads what the case does not hold yet; refuses, before any upload, a file or the response document
 * over an Amex case's limit.
 */
export async function uploadDocuments(
  http: ProcessorHttp,
  chargebackCase: ChargebackCase,
  request: {
    idempotencyKey: string;
    pdf: Buffer;
    files: readonly AttachedFile[];
    /** The files and the response document, for the limit check. */
    sent: readonly SentFile[];
  },
): Promise<void> {
  const { caseId } = chargebackCase;
  if (networkOf(chargebackCase.cardType) === 'amex') {
    checkEvidenceLimits(processor, { ...evidenceLimits, maxFileBytes: amexMaxFileBytes }, request.sent);
  }
  for (const file of request.files) {
    const documentId = fileDocumentId(request.idempotencyKey, file);
    await upload(http, caseId, documentId, { bytes: file.bytes, contentType: fileContentTypes[file.type] });
  }
  const documentId = documentIdFor(request.idempotencyKey);
  await upload(http, caseId, documentId, { bytes: request.pdf, contentType: fileContentTypes.pdf });
}

/** POSTs the file as the raw body (not multipart), as the document API takes files. */
async function upload(
  http: ProcessorHttp,
  caseId: string,
  documentId: string,
  file: { bytes: Buffer; contentType: string },
): Promise<void> {
  const answer = await http.send({
    method: 'POST',
    path: `services/chargebacks/upload/${caseId}/${documentId}`,
    headers: { 'content-type': file.contentType },
    body: file.bytes,
  });
  const result = readXml(http, answer, documentResponse).chargebackDocumentUploadResponse;
  if (result.responseCode === '000') return;
  // Our document, uploaded by an attempt whose answer was lost; or a refusal sharing the code.
  if (result.responseCode === '005' && (await documentsOf(http, caseId)).includes(documentId)) return;
  throw documentRefusal(http, answer, result);
}

async function documentsOf(http: ProcessorHttp, caseId: string): Promise<string[]> {
  const answer = await http.send({
    method: 'GET',
    path: `services/chargebacks/list/${caseId}`,
    idempotent: true,
  });
  const result = readXml(http, answer, documentResponse).chargebackDocumentUploadResponse;
  if (result.responseCode !== '000') throw documentRefusal(http, answer, result);
  return result.documentId;
}

function documentRefusal(
  http: ProcessorHttp,
  answer: HttpAnswer,
  result: { responseCode: string; responseMessage: string },
): ProcessorError {
  const known = documentCodes[result.responseCode as keyof typeof documentCodes];
  const message = result.responseMessage || known || 'unknown response code';
  return new ProcessorError(processor, `Vantiv refused the document (${result.responseCode}: ${message}).`, {
    retryable: false,
    status: answer.status,
    excerpt: http.excerpt(answer.body),
  });
}
