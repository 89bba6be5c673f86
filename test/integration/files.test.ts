import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/api/openapi.js';
import { fileContents, files } from '../../src/db/schema/index.js';
import { maxFileBytes } from '../../src/domain/evidence-files.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { timestampPattern } from '../helpers/disputes.js';
import { sampleJpeg, samplePdf, samplePng } from '../helpers/evidence-files.js';
import {
  encryptedPdf,
  jpegOfSize,
  multipart,
  multipartType,
  postFiles,
  storedCounts,
  upload,
} from '../helpers/files.js';
import { expectApiError } from '../helpers/security.js';

/**
 * POST /v1/files (docs/api.md, "Uploading"): a multipart body with one file part, judged by its bytes,
 * at most 5 MB, within FILES_MAX_BYTES per organisation and mode; every refusal is a JSON error and keeps
 * nothing. Reading and deleting are files-read.test.ts's.
 */

let api: TestApi;
beforeAll(async () => {
  // The smallest bound the setting takes: one file at the upload limit fills an organisation's mode.
  api = await startTestApi({ workers: [], env: { FILES_MAX_BYTES: String(maxFileBytes) } });
});
afterAll(async () => {
  await api.close();
});

const fileId = /^file_[0-9a-z]{20}$/;
const newKey = async () => (await api.createOrg()).test_key;

/** The file object an upload answers, its id and time as made. */
function expectedFile(body: Record<string, unknown>, attributes: Record<string, unknown>) {
  return {
    object: 'file',
    id: expect.stringMatching(fileId),
    purpose: 'dispute_evidence',
    created: expect.stringMatching(timestampPattern),
    livemode: false,
    url: `/v1/files/${String(body.id)}`,
    ...attributes,
  };
}

/** Asserts a refusal: the exact error, and nothing stored. */
async function expectRefused(
  send: () => Promise<{ status: number; text: string; body: unknown; headers: Record<string, unknown> }>,
  status: number,
  type: string,
  message?: string,
) {
  const before = await storedCounts(api);
  const response = await send();
  expectApiError(response as Parameters<typeof expectApiError>[0], { status, type, url: '/v1/files' });
  if (message !== undefined)
    expect((response.body as { error: { message: string } }).error.message).toBe(message);
  expect(await storedCounts(api)).toEqual(before);
}

describe('POST /v1/files: what is taken', () => {
  it('takes a PNG, a JPEG and a PDF: 201 with the file object, its bytes kept as sent', async () => {
    const key = await newKey();
    const cases = [
      { bytes: samplePng(), filename: 'receipt.png', type: 'png', pages: null },
      { bytes: sampleJpeg(), filename: 'delivery.jpg', type: 'jpg', pages: null },
      { bytes: await samplePdf('Messages', 3), filename: 'messages.pdf', type: 'pdf', pages: 3 },
    ];
    for (const { bytes, filename, type, pages } of cases) {
      const response = await upload(api, key, bytes, filename);
      expect(response.status, response.text).toBe(201);
      expect(response.body).toEqual(
        expectedFile(response.body, { filename, type, size: bytes.length, pages }),
      );
      const id = String(response.body.id);
      const [row] = await api.db.db.select().from(files).where(eq(files.id, id));
      expect(row?.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      const [content] = await api.db.db.select().from(fileContents).where(eq(fileContents.fileId, id));
      expect(content?.content.equals(bytes)).toBe(true);
    }
  });

  it('judges the bytes, not the name nor the declared type: a PNG named x.pdf sent as application/pdf is a png', async () => {
    const response = await upload(api, await newKey(), samplePng(), 'x.pdf', 'application/pdf');
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ type: 'png', filename: 'x.pdf', pages: null });
  });

  it('keeps the name without its path or control characters, at most 255 characters, else file.<type>', async () => {
    const key = await newKey();
    const cases: [string | undefined, string][] = [
      ['C:\\Users\\me\\receipt.png', 'receipt.png'],
      ['../../etc/receipt.png', 'receipt.png'],
      ['  ', 'file.png'],
      ['..', 'file.png'],
      [`${'a'.repeat(300)}.png`, 'a'.repeat(255)],
      ['reçu "final".png', 'reçu "final".png'],
    ];
    for (const [sent, kept] of cases) {
      const body = multipart([{ name: 'file', filename: sent, body: samplePng() }]);
      const response = await postFiles(api, key, body);
      expect(response.status, `${sent}: ${response.text}`).toBe(201);
      expect(response.body.filename, sent).toBe(kept);
    }
    // Control and formatting characters, which only an encoded name (RFC 5987) can carry, are dropped.
    const encoded = multipart([
      {
        name: 'file',
        disposition: `form-data; name="file"; filename*=UTF-8''re%01ce%09ipt%E2%80%AEgnp.exe`,
        body: samplePng(),
      },
    ]);
    const cleaned = await postFiles(api, key, encoded);
    expect(cleaned.status, cleaned.text).toBe(201);
    expect(cleaned.body.filename).toBe('receiptgnp.exe');
    // A part without a filename is a file part when its type says so (RFC 7578): named file.<type>.
    const unnamed = await postFiles(
      api,
      key,
      multipart([{ name: 'file', contentType: 'application/octet-stream', body: sampleJpeg() }]),
    );
    expect(unnamed.status, unnamed.text).toBe(201);
    expect(unnamed.body.filename).toBe('file.jpg');
  });

  it('takes the optional purpose dispute_evidence, and ignores other fields', async () => {
    const key = await newKey();
    const body = multipart([
      { name: 'purpose', body: 'dispute_evidence' },
      // Unknown parameters are ignored, as everywhere; `__proto__` is one like any other.
      { name: '__proto__', body: 'x' },
      { name: 'note', body: 'ignored' },
      { name: 'file', filename: 'r.png', body: samplePng() },
    ]);
    const response = await postFiles(api, key, body);
    expect(response.status, response.text).toBe(201);
    expect(response.body.purpose).toBe('dispute_evidence');
  });

  it('takes a valid file of exactly 5 MB; one byte more answers 413 request_too_large', async () => {
    const atLimit = jpegOfSize(sampleJpeg(), maxFileBytes);
    expect(atLimit.length).toBe(5_242_880);
    const response = await upload(api, await newKey(), atLimit, 'big.jpg');
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ type: 'jpg', size: maxFileBytes });
    const over = jpegOfSize(sampleJpeg(), maxFileBytes + 1);
    const key = await newKey();
    await expectRefused(() => upload(api, key, over, 'big.jpg'), 413, 'request_too_large');
    // Sent in pieces without a Content-Length, the same.
    const body = multipart([{ name: 'file', filename: 'big.jpg', body: over }]);
    const pieces = Array.from({ length: 6 }, (_, at) => body.subarray(at * 1_000_000, (at + 1) * 1_000_000));
    await expectRefused(() => postFiles(api, key, pieces), 413, 'request_too_large');
  });
});

describe('POST /v1/files: bad files answer 400 invalid_file with the reason', () => {
  it('refuses empty, truncated, encrypted and unrecognised files, keeping nothing', async () => {
    const key = await newKey();
    const png = samplePng();
    const jpeg = sampleJpeg();
    const pdf = await samplePdf('Cut', 2);
    const cases: [string, Buffer, string][] = [
      ['empty', Buffer.alloc(0), 'the file is empty'],
      ['truncated PNG', png.subarray(0, png.length - 20), 'the PNG is truncated: it has no IEND chunk'],
      [
        'truncated JPEG',
        jpeg.subarray(0, jpeg.length - 10),
        'the JPEG is truncated: it has no end-of-image marker',
      ],
      ['truncated PDF', pdf.subarray(0, pdf.length - 200), 'the PDF is truncated: it has no %%EOF'],
      ['encrypted PDF', encryptedPdf(), 'the PDF is encrypted: upload it without a password'],
      ['garbage', Buffer.from('MZ\x90\x00 not a document at all'), 'the file is not a PDF, PNG or JPEG'],
      ['text named .pdf', Buffer.from('%PDX-1.4 hello'), 'the file is not a PDF, PNG or JPEG'],
    ];
    for (const [name, bytes, problem] of cases) {
      await expectRefused(
        () => upload(api, key, bytes, `${name}.pdf`, 'application/pdf'),
        400,
        'invalid_file',
        `The file cannot be used: ${problem}.`,
      );
    }
  });
});

describe('POST /v1/files: bodies that are not one file part answer 400 invalid_request', () => {
  it('refuses each malformed or unexpected multipart body, and other content types, keeping nothing', async () => {
    const key = await newKey();
    const png = samplePng();
    const file = { name: 'file', filename: 'r.png', body: png };
    const cases: [string, Buffer, string?][] = [
      ['no file part', multipart([{ name: 'purpose', body: 'dispute_evidence' }])],
      ['no parts at all', Buffer.from(`--rebuttal-test-boundary-4711--\r\n`)],
      ['two file parts', multipart([file, { ...file, filename: 'again.png' }])],
      ['a file part of another name', multipart([{ ...file, name: 'document' }])],
      ['file as a plain field', multipart([{ name: 'file', body: 'not a file' }])],
      ['a field too long', multipart([{ name: 'purpose', body: 'x'.repeat(5000) }, file])],
      [
        'too many parts',
        multipart([...Array.from({ length: 12 }, (_, at) => ({ name: `f${at}`, body: 'x' })), file]),
      ],
      ['an unknown purpose', multipart([{ name: 'purpose', body: 'product_image' }, file])],
      ['a control character in a part header', multipart([{ ...file, filename: 'r\u0001.png' }])],
      ['no closing boundary', multipart([file]).subarray(0, -40)],
      ['another boundary', multipart([file]), 'multipart/form-data; boundary=somethingelse'],
      ['no boundary', multipart([file]), 'multipart/form-data'],
      ['an empty boundary', multipart([file]), 'multipart/form-data; boundary='],
      ['garbage', Buffer.from('\x00\x01\x02 garbage \r\n\r\n--'), multipartType],
      ['JSON', Buffer.from('{"file":"x"}'), 'application/json'],
      ['a form', Buffer.from('file=x'), 'application/x-www-form-urlencoded'],
      ['raw bytes', png, 'image/png'],
    ];
    for (const [name, body, contentType] of cases) {
      await expectRefused(() => postFiles(api, key, body, contentType), 400, 'invalid_request').catch(
        (error: Error) => {
          throw new Error(`${name}: ${error.message}`);
        },
      );
    }
  });

  it('refuses a body over the limit at once by its Content-Length, and an empty POST', async () => {
    const key = await newKey();
    const before = await storedCounts(api);
    const response = await postFiles(api, key, Buffer.alloc(maxFileBytes + 100_000));
    expectApiError(response, { status: 413, type: 'request_too_large', url: '/v1/files' });
    const empty = await postFiles(api, key, Buffer.alloc(0));
    expectApiError(empty, { status: 400, type: 'invalid_request', url: '/v1/files' });
    expect(await storedCounts(api)).toEqual(before);
  });

  it('still refuses multipart bodies on every other route', async () => {
    const { test_key } = await api.createOrg();
    const response = await api.call('POST', '/v1/disputes', {
      key: test_key,
      raw: multipart([{ name: 'id', body: 'dp_1' }]),
      headers: { 'content-type': multipartType },
    });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/disputes' });
    expect(response.body).toMatchObject({
      error: { message: expect.stringContaining('Unsupported content type') },
    });
  });
});

describe('FILES_MAX_BYTES', () => {
  it('bounds the bytes an organisation keeps in each mode: past it, 400 invalid_request naming the setting', async () => {
    const org = await api.createOrg();
    const big = jpegOfSize(sampleJpeg(), maxFileBytes - 1000);
    const first = await upload(api, org.test_key, big, 'big.jpg');
    expect(first.status, first.text).toBe(201);
    await expectRefused(
      () => upload(api, org.test_key, samplePng()),
      400,
      'invalid_request',
      `An organisation may keep at most ${maxFileBytes} bytes of files in test mode (FILES_MAX_BYTES); delete files before uploading more.`,
    );
    // The other mode, and another organisation, have their own.
    const live = await upload(api, org.live_key, samplePng());
    expect(live.status, live.text).toBe(201);
    expect(live.body.livemode).toBe(true);
    const other = await upload(api, await newKey(), samplePng());
    expect(other.status, other.text).toBe(201);
    // Deleting makes room again.
    const deleted = await api.call('DELETE', `/v1/files/${String(first.body.id)}`, { key: org.test_key });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await upload(api, org.test_key, samplePng())).status).toBe(201);
  });
});

describe('POST /v1/files in the OpenAPI document', () => {
  it('is documented as multipart/form-data: the file a binary part beside the optional purpose', async () => {
    type Operation = { requestBody?: { content: Record<string, unknown> } };
    const document = (await api.call<{ paths: Record<string, { post?: Operation }> }>('GET', openApiPath))
      .body;
    const content = document.paths['/v1/files']?.post?.requestBody?.content ?? {};
    expect(Object.keys(content)).toEqual(['multipart/form-data']);
    expect(content['multipart/form-data']).toEqual({
      schema: {
        type: 'object',
        properties: {
          purpose: { type: 'string', enum: ['dispute_evidence'] },
          file: {
            type: 'string',
            contentMediaType: 'application/octet-stream',
            description: "The file's bytes, with a filename.",
          },
        },
        required: ['file'],
      },
      encoding: { file: { contentType: 'application/octet-stream' } },
    });
  });
});
