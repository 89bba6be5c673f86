import { describe, expect, it } from 'vitest';
import { amexEvidenceLimits } from '../../../src/processors/amex/adapter.js';
import { paypalEvidenceLimits } from '../../../src/processors/paypal/mapping.js';
import {
  checkEvidenceLimits,
  sentAttached,
  sentDocument,
  slottedFiles,
} from '../../../src/processors/slot-uploads.js';
import { ProcessorError } from '../../../src/processors/types.js';
import { worldpayEvidenceLimits } from '../../../src/processors/worldpay/adapter.js';
import { attached } from '../../helpers/evidence-files.js';

const document = { id: 'doc_1', filename: 'response-dp_1.pdf', pdf: Buffer.alloc(1000), sha256: '' };
const file = (id: string, size: number, pages: number | null = null) => ({
  ...attached(id, Buffer.alloc(10), pages === null ? 'png' : 'pdf', 'receipt', { pages }),
  size,
});

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

describe('PayPal evidence types and the portals', () => {
  it('puts each category in its PayPal evidence type, policies together; access logs in the document only', () => {
    const files = [
      attached('file_a', Buffer.alloc(1), 'png', 'access_activity_log'),
      attached('file_b', Buffer.alloc(1), 'jpg', 'refund_policy'),
      attached('file_c', Buffer.alloc(1), 'pdf', 'cancellation_policy'),
      attached('file_d', Buffer.alloc(1), 'png', 'customer_signature'),
    ];
    const slotted = slottedFiles(paypalEvidenceLimits, files);
    expect([...slotted].map(([type, held]) => [type, held.map(({ id }) => id)])).toEqual([
      ['RETURN_POLICY', ['file_b', 'file_c']],
      ['PROOF_OF_DELIVERY_SIGNATURE', ['file_d']],
    ]);
    // Portal processors take no file of their own: everything is in the response document.
    expect(slottedFiles(worldpayEvidenceLimits, files).size).toBe(0);
    expect(slottedFiles(amexEvidenceLimits, files).size).toBe(0);
  });

  it('refuses more files than a processor takes in one submission, and a PDF over its pages', () => {
    const five = Array.from({ length: 5 }, (_, index) => sentAttached(file(`file_${index}`, 100)));
    expect(
      refusal(() => checkEvidenceLimits('amex', amexEvidenceLimits, [...five, sentDocument(document)])),
    ).toBe("The submission sends 6 files, over the processor's limit of 5; nothing was sent.");
    expect(() => checkEvidenceLimits('amex', amexEvidenceLimits, five)).not.toThrow();
    const long = sentAttached(file('file_long', 100, 21));
    expect(refusal(() => checkEvidenceLimits('amex', amexEvidenceLimits, [long]))).toBe(
      "The file file_long (file_long.pdf) has 21 pages, over the processor's limit of 20 pages; nothing was sent.",
    );
  });
});
