import { count } from 'drizzle-orm';
import { fileContents, files } from '../../src/db/schema/index.js';
import type { ApiResponse, TestApi } from './api.js';
import { basicAuth, type RawAnswer, rawCall, rawExchange } from './security.js';

/** Uploads through `POST /v1/files` (docs/api.md, "Uploading") as clients send them: multipart bodies. */

export interface Part {
  name: string;
  /** Given, the part is a file part (`filename="…"`, a quoted string: `"` and `\` escaped). */
  filename?: string;
  contentType?: string;
  /** The whole Content-Disposition, in place of the one `name` and `filename` make. */
  disposition?: string;
  body: Buffer | string;
}

export const boundary = 'rebuttal-test-boundary-4711';

/** A multipart/form-data body of these parts. */
export function multipart(parts: readonly Part[]): Buffer {
  const pieces = parts.flatMap((part) => {
    const disposition =
      part.disposition ??
      `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename.replace(/["\\]/g, '\\$&')}"`}`;
    const head = [
      `--${boundary}`,
      `Content-Disposition: ${disposition}`,
      ...(part.contentType ? [`Content-Type: ${part.contentType}`] : []),
      '',
      '',
    ].join('\r\n');
    return [Buffer.from(head, 'utf8'), Buffer.from(part.body), Buffer.from('\r\n')];
  });
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
}

export const multipartType = `multipart/form-data; boundary=${boundary}`;

/** A raw POST /v1/files: `body` as given, with `contentType`. */
export function postFiles(
  api: TestApi,
  key: string,
  body: Buffer | Buffer[],
  contentType = multipartType,
): Promise<ApiResponse> {
  return rawCall({
    secure: true,
    port: Number(new URL(api.origin).port),
    method: 'POST',
    path: '/v1/files',
    headers: { authorization: basicAuth(key), 'content-type': contentType },
    body,
  });
}

/** Uploads `bytes` as the part `file`, named `filename`. */
export function upload(
  api: TestApi,
  key: string,
  bytes: Buffer,
  filename = 'receipt.png',
  contentType = 'application/octet-stream',
): Promise<ApiResponse> {
  return postFiles(api, key, multipart([{ name: 'file', filename, contentType, body: bytes }]));
}

/** A GET whose answer may not be JSON (a file's contents). */
export function fetchRaw(api: TestApi, key: string, path: string): Promise<RawAnswer> {
  return rawExchange({
    secure: true,
    port: Number(new URL(api.origin).port),
    method: 'GET',
    path,
    headers: { authorization: basicAuth(key) },
  });
}

/** How many files and stored contents there are, to show that a refusal kept nothing. */
export async function storedCounts(api: TestApi): Promise<{ files: number; contents: number }> {
  const [rows] = await api.db.db.select({ n: count() }).from(files);
  const [bytes] = await api.db.db.select({ n: count() }).from(fileContents);
  return { files: rows?.n ?? 0, contents: bytes?.n ?? 0 };
}

/**
 * `jpeg` grown to exactly `size` bytes with comment segments after its start marker: still a whole JPEG
 * (each COM segment is its marker, a two-byte length and at most 65,533 bytes of comment).
 */
export function jpegOfSize(jpeg: Buffer, size: number): Buffer {
  const segments: Buffer[] = [];
  let missing = size - jpeg.length;
  while (missing > 0) {
    // A segment is 4 bytes of marker and length, and its comment; the last must still have 4 bytes to spare.
    const take = Math.min(65_533, missing - 4);
    if (take < 0) throw new Error('jpegOfSize: cannot make up fewer than 4 bytes');
    const segment = Buffer.alloc(4 + take, 0x20);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(take + 2, 2);
    segments.push(segment);
    missing -= segment.length;
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/**
 * A one-page PDF whose trailer names an /Encrypt dictionary (pdf-lib cannot encrypt, so it is written by
 * hand): a reader must refuse it as encrypted.
 */
export function encryptedPdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    '<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>',
  ];
  let text = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(text, 'latin1'));
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(text, 'latin1');
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<01> <01>] >>\n`;
  text += `startxref\n${xref}\n%%EOF\n`;
  return Buffer.from(text, 'latin1');
}
