import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { EndpointDocs } from './endpoint.js';

/**
 * How the values of request bodies travel, for the OpenAPI document (api/openapi.ts): in a form, a
 * dictionary as `name[key]=value` and an array as one JSON-text value; in JSON, an array as itself or as that
 * same text.
 */

type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/**
 * An array parameter may be its JSON text in a JSON body too, as in a form: the API has always taken it so,
 * and clients of the original interface send it (docs/api.md, "Conventions"). The generator shows only the
 * array behind the preprocess, so the text alternative is added to each body component here.
 */
export function withJsonTextArrays<D extends OpenApiDocument>(
  document: D,
  arrays: ReadonlyMap<string, string[]>,
) {
  for (const [name, properties] of arrays) {
    const schema = document.components?.schemas?.[name];
    if (!schema || '$ref' in schema || !schema.properties) continue;
    for (const property of properties) {
      const array = schema.properties[property];
      if (!array || '$ref' in array) continue;
      const { default: fallback, ...alternative } = array;
      schema.properties[property] = {
        anyOf: [alternative, jsonText],
        ...(fallback !== undefined && { default: fallback }),
      };
    }
  }
  return document;
}

const jsonText = {
  type: 'string',
  contentMediaType: 'application/json',
  description: 'The array as one JSON-text value.',
} as const;

/** How a form carries a value: a dictionary as `name[key]=value`, an array as one JSON-text value. */
export function formEncoding(schema: z.core.$ZodType) {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodArray) return { contentType: 'application/json' };
  if (inner instanceof z.ZodRecord) return { style: 'deepObject' as const, explode: true };
  return undefined;
}

/** The schema a value is validated by, past optional, nullable, default and preprocessing. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault)
    return unwrap(schema.unwrap());
  if (schema instanceof z.ZodPipe)
    return unwrap(schema.in instanceof z.ZodTransform ? schema.out : schema.in);
  return schema;
}

/**
 * An upload's body (api/middleware/upload.ts): `multipart/form-data`, its fields as the schema says and the
 * file, which no schema can check but the upload's reader, as binary in its part.
 */
export function multipartBody(docs: EndpointDocs, body: z.ZodType, part: string) {
  if (!(body instanceof z.ZodObject))
    throw new Error(`openapi.ts: ${docs.operationId}: a body must be an object`);
  const file = z.string().meta({
    description: "The file's bytes, with a filename.",
    contentMediaType: 'application/octet-stream',
  });
  const schema = body.extend({ [part]: file });
  return {
    content: {
      'multipart/form-data': { schema, encoding: { [part]: { contentType: 'application/octet-stream' } } },
    },
  };
}
