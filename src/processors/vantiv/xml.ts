import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import type { HttpAnswer, ProcessorHttp } from '../http.js';
import { ProcessorError } from '../types.js';
import { caseSchema } from './mapping.js';

/**
 * The Chargeback API's XML (chargeback-api-v2.1.xsd in github.com/Vantiv/cnp-chargeback-sdk-python): its
 * media type, the answers this service reads, and the one request body it builds. Elements sit in the
 * chargebacks namespace, declared as the default namespace or with a prefix; both read the same.
 */
export const mediaType = 'application/com.vantivcnp.services-v2+xml';
const namespace = 'http://www.vantivcnp.com/chargebacks';

/** Elements that may repeat; the parser would otherwise make a lone one a scalar. */
const repeated = new Set(['chargebackCase', 'activity', 'documentId', 'error']);
const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => repeated.has(name),
});
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_' });

/** An element with no children reads as ''. */
const element = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.preprocess((value) => (value === '' ? {} : value), z.object(shape));

export const retrievalResponse = z.object({
  chargebackRetrievalResponse: element({ chargebackCase: z.array(caseSchema).default([]) }),
});
export const updateResponse = z.object({ chargebackUpdateResponse: element({}) });
export const documentResponse = z.object({
  chargebackDocumentUploadResponse: element({
    documentId: z.array(z.string()).default([]),
    responseCode: z.string(),
    responseMessage: z.string().default(''),
  }),
});
const errorResponse = z.object({
  errorResponse: element({ errors: element({ error: z.array(z.string()).default([]) }).optional() }),
});

/** A chargebackUpdateRequest (an activity on a case, with its note). */
export function updateRequestXml(request: { activityType: string; note: string }): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    chargebackUpdateRequest: { '@_xmlns': namespace, ...request },
  });
}

/**
 * Reads an XML answer with `schema`. An errorResponse is Vantiv's refusal even when it comes with a 2xx:
 * permanent, with Vantiv's own words.
 */
export function readXml<Schema extends z.ZodType>(
  http: ProcessorHttp,
  answer: HttpAnswer,
  schema: Schema,
): z.infer<Schema> {
  let parsed: unknown;
  try {
    parsed = parser.parse(answer.body, true);
  } catch {
    throw http.unreadable(answer, 'is not XML');
  }
  const refusal = errorResponse.safeParse(parsed);
  if (refusal.success) {
    const errors = refusal.data.errorResponse.errors?.error ?? [];
    throw new ProcessorError(
      http.processor,
      `Vantiv refused the request: ${errors.join('; ') || 'no reason given'}.`,
      {
        retryable: false,
        status: answer.status,
        excerpt: http.excerpt(answer.body),
      },
    );
  }
  return http.read(answer, schema, () => parsed);
}
