import { describe, expect, it } from 'vitest';
import { amexEvidenceLimits } from '../../src/processors/amex/adapter.js';
import { checkEvidenceLimits, slottedFiles } from '../../src/processors/evidence-limits.js';
import { paypalEvidenceLimits } from '../../src/processors/paypal/mapping.js';
import { ProcessorError } from '../../src/processors/types.js';
import { worldpayEvidenceLimits } from '../../src/processors/worldpay/adapter.js';
import { attached } from '../helpers/evidence-files.js';

const document = { id: 'doc_1', filename: 'response-dp_1.pdf', pdf: Buffer.alloc(1000), sha256: '' };
const file = (id: string, size: number, pages: number | null = null) => ({
  ...attached(id, Buffer.alloc(10), pages === null ? 'png' : 'pdf', 'receipt', { pages }),
  size,
});
const amex = { name: 'amex', label: 'Amex' };

function refusal(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProcessorError);
    expect((error as ProcessorError).retryable).toBe(false);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('slottedFiles', () => {
  it('keeps the files whose category has a slot and whose type the slots take, in order', () => {
    const files = [
      attached('file_a', Buffer.alloc(1), 'png', 'access_activity_log'),
      attached('file_b', Buffer.alloc(1), 'jpg', 'shipping_documentation'),
      attached('file_c', Buffer.alloc(1), 'png', 'receipt'),
    ];
    expect(slottedFiles(paypalEvidenceLimits, files).map(({ file, slot }) => [file.id, slot])).toEqual([
      ['file_b', 'PROOF_OF_SHIPMENT_POSTAGE'],
      ['file_c', 'PROOF_OF_RECEIPT_COPY'],
    ]);
    // Portal processors take no file of their own: everything is in the response document.
    expect(slottedFiles(worldpayEvidenceLimits, files)).toEqual([]);
  });
});

describe('checkEvidenceLimits', () => {
  it('passes what is within every limit', () => {
    expect(() => checkEvidenceLimits(amex, amexEvidenceLimits, [], document)).not.toThrow();
  });

  it("names the file and the limit it is over: size, pages, count (the total: PayPal's tests)", () => {
    const big = { file: file('file_big', 5 * 1024 * 1024 + 1), slot: 'x' };
    expect(refusal(() => checkEvidenceLimits(amex, amexEvidenceLimits, [big], document))).toBe(
      "Not sent: evidence file 'file_big' (file_big.png) is 5,242,881 bytes, over Amex's limit of 5,242,880 bytes a file.",
    );
    const long = { file: file('file_long', 100, 21), slot: 'x' };
    expect(refusal(() => checkEvidenceLimits(amex, amexEvidenceLimits, [long], document))).toBe(
      "Not sent: evidence file 'file_long' (file_long.pdf) has 21 pages, over Amex's limit of 20.",
    );
    const five = Array.from({ length: 5 }, (_, index) => ({ file: file(`file_${index}`, 100), slot: 'x' }));
    expect(refusal(() => checkEvidenceLimits(amex, amexEvidenceLimits, five, document))).toBe(
      "Not sent: the evidence files and the response document are 6 files, over Amex's limit of 5 a submission.",
    );
  });
});
