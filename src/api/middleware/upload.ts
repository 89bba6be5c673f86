import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { Upload } from '../../features/files/files.js';
import { chargeBytes } from './rate-limit.js';

/**
 * The body of an upload route (docs/api.md, "Uploading"): `multipart/form-data` with one file part, read
 * here, in place of the JSON and form bodies of every other route (middleware/body.ts), and streamed under
 * the route's own limit instead of the 1 MiB one. Whatever goes wrong answers a JSON error: 413 past the
 * limit, 400 for anything else that is not one file part and a few short fields.
 */
export interface UploadLimits {
  /** The name of the file part. */
  part: string;
  /** The most bytes the file may have. */
  maxBytes: number;
}

/** The parts beside the file: a few short fields (`purpose`). */
const fieldLimits = { fields: 8, fieldSize: 1024, parts: 10, headerPairs: 20 };
/** What a body may carry beyond the file: boundaries, part headers and those fields. */
const envelopeBytes = 64 * 1024;

export function readUpload(limits: UploadLimits) {
  const maxBody = limits.maxBytes + envelopeBytes;
  const tooLarge = () =>
    new ApiError('request_too_large', `The upload is too large: a file is at most ${limits.maxBytes} bytes.`);
  const unreadable = (why: string) => new ApiError('invalid_request', `The upload cannot be read: ${why}.`);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is('multipart/form-data')) {
      throw new ApiError(
        'invalid_request',
        `Unsupported content type: send multipart/form-data, the file in a part named '${limits.part}'.`,
      );
    }
    if (Number(req.headers['content-length'] ?? 0) > maxBody) throw tooLarge();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // busboy stops a file when it reaches `fileSize`: one byte more than the limit is what is too large.
        limits: { ...fieldLimits, files: 1, fileSize: limits.maxBytes + 1 },
      });
    } catch {
      throw unreadable('the multipart boundary is missing or malformed');
    }
    // Kept as entries: a part named `__proto__` becomes a plain parameter (Object.fromEntries), nothing more.
    const fields: [string, string][] = [];
    let file: Upload | undefined;
    let settled = false;
    const finish = (error?: ApiError) => {
      if (settled) return;
      settled = true;
      if (error) {
        // Stop parsing and let the rest of the body pass unread, so the answer goes out at once.
        req.unpipe(parser);
        req.resume();
        next(error);
      } else if (!file) {
        next(unreadable(`it has no file part named '${limits.part}'`));
      } else {
        // An upload costs its bytes, as an answer does (docs/api.md, "Limits").
        chargeBytes(res, file.bytes.length);
        req.body = { ...Object.fromEntries(fields), [limits.part]: file };
        next();
      }
    };
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBody) finish(tooLarge());
    });
    parser.on('file', (name, stream, info) => {
      if (name !== limits.part) {
        stream.resume();
        finish(unreadable(`its only file part must be named '${limits.part}', not '${name}'`));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => finish(tooLarge()));
      // A body that ends inside the file (no closing boundary) fails the file's stream as well as the parser.
      stream.on('error', () => finish(unreadable('the multipart body is malformed')));
      stream.on('end', () => {
        file = { bytes: Buffer.concat(chunks), filename: info.filename };
      });
    });
    parser.on('field', (name, value, info) => {
      if (name === limits.part) finish(unreadable(`the part '${name}' must be a file: give it a filename`));
      else if (info.nameTruncated || info.valueTruncated)
        finish(unreadable(`the part '${name}' is too long`));
      else fields.push([name, value]);
    });
    parser.on('filesLimit', () => finish(unreadable(`send one file, in the part '${limits.part}'`)));
    parser.on('fieldsLimit', () => finish(unreadable('it has too many parts')));
    parser.on('partsLimit', () => finish(unreadable('it has too many parts')));
    parser.on('error', () => finish(unreadable('the multipart body is malformed')));
    parser.on('close', () => finish());
    req.pipe(parser);
  };
}
