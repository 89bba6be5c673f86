import { createHash } from 'node:crypto';

/**
 * multipart/form-data bodies (RFC 7578) encoded to the same bytes every time for the same parts. A
 * processor that deduplicates by idempotency key may compare a repeat with the first request byte for
 * byte, boundary included (docs/operations.md, "Faults"): the boundary is derived from the parts, never
 * random, so the retry of an upload, in this process or in another worker after a restart, is the
 * request the processor saw first.
 */
export interface FormPart {
  name: string;
  value: string | Buffer;
  /** Makes the part a file, with this name. */
  filename?: string;
  /** The part's type; a file without one is application/octet-stream. */
  contentType?: string;
}

export interface EncodedForm {
  body: Buffer;
  contentType: string;
}

export function encodeMultipart(parts: readonly FormPart[]): EncodedForm {
  const encoded = parts.map((part) => ({ head: Buffer.from(headOf(part), 'utf8'), data: dataOf(part) }));
  const hash = createHash('sha256');
  for (const { head, data } of encoded) hash.update(head).update(data);
  // A boundary must not occur in any part. Derived from a hash of the parts, it cannot by accident, and
  // nobody can write a document that contains the hash of itself; the check makes that a certainty.
  const boundary = `rebuttal-${hash.digest('hex').slice(0, 40)}`;
  if (encoded.some(({ head, data }) => head.includes(boundary) || data.includes(boundary))) {
    throw new Error('a multipart part contains its own boundary');
  }
  const chunks: Buffer[] = [];
  for (const { head, data } of encoded) {
    chunks.push(Buffer.from(`--${boundary}\r\n`), head, data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function headOf(part: FormPart): string {
  const file = part.filename === undefined ? '' : `; filename="${quoted(part.filename)}"`;
  const type = part.contentType ?? (part.filename === undefined ? undefined : 'application/octet-stream');
  return [
    `Content-Disposition: form-data; name="${quoted(part.name)}"${file}`,
    ...(type === undefined ? [] : [`Content-Type: ${type.replace(/[\r\n]/g, '')}`]),
    '',
    '',
  ].join('\r\n');
}

const dataOf = (part: FormPart): Buffer =>
  typeof part.value === 'string' ? Buffer.from(part.value, 'utf8') : part.value;

/** As browsers escape names in a form's headers (the HTML standard's multipart encoding). */
const quoted = (text: string) => text.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
