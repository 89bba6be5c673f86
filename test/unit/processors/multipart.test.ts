import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeMultipart, type FormPart } from '../../../src/processors/multipart.js';
import { type FakeRequest, multipartParts } from '../../fakes/harness.js';

/** How a processor reads the body: split at the boundary its content type names. */
function partsOf(parts: readonly FormPart[]) {
  const { body, contentType } = encodeMultipart(parts);
  const request: FakeRequest = {
    method: 'POST',
    path: '/',
    query: new URLSearchParams(),
    headers: { 'content-type': contentType },
    body,
  };
  return multipartParts(request);
}

const document: FormPart[] = [
  { name: 'purpose', value: 'dispute_evidence' },
  { name: 'file', value: Buffer.from('%PDF-1.7\n...'), filename: 'a.pdf', contentType: 'application/pdf' },
];

describe('multipart bodies', () => {
  it('are the same bytes, boundary included, every time the same parts are encoded', () => {
    const once = encodeMultipart(document);
    const again = encodeMultipart(document.map((part) => ({ ...part })));
    expect(again.contentType).toBe(once.contentType);
    expect(again.body.equals(once.body)).toBe(true);
    expect(once.contentType).toMatch(/^multipart\/form-data; boundary=rebuttal-[0-9a-f]{40}$/);
  });

  it('have another boundary when any byte of a part differs', () => {
    const other = encodeMultipart([
      document[0] as FormPart,
      { ...(document[1] as FormPart), value: Buffer.from('%PDF-1.7\n..,') },
    ]);
    expect(other.contentType).not.toBe(encodeMultipart(document).contentType);
  });

  it('read back as the parts given, files with their names and types', () => {
    expect(partsOf(document)).toEqual([
      { name: 'purpose', data: Buffer.from('dispute_evidence') },
      { name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.7\n...') },
    ]);
  });

  it('escape quotes and line breaks in names, so a name cannot add a header or a part', () => {
    const { body, contentType } = encodeMultipart([
      { name: 'x"\r\nContent-Type: text/html', value: 'v', filename: 'evil"\r\n.pdf' },
    ]);
    const boundary = contentType.split('boundary=')[1];
    expect(body.toString('latin1')).toBe(
      [
        `--${boundary}`,
        'Content-Disposition: form-data; name="x%22%0D%0AContent-Type: text/html"; filename="evil%22%0D%0A.pdf"',
        'Content-Type: application/octet-stream',
        '',
        'v',
        `--${boundary}--`,
        '',
      ].join('\r\n'),
    );
  });

  it('carry any bytes unchanged, the boundary never among them', () => {
    for (let run = 0; run < 50; run++) {
      const data = randomBytes(1 + Math.floor(Math.random() * 4096));
      const parts = partsOf([{ name: 'file', value: data, filename: 'f.bin' }]);
      expect(parts).toHaveLength(1);
      expect(parts[0]?.data.equals(data)).toBe(true);
    }
  });
});
