import { describe, expect, it } from 'vitest';
import { documentOnly } from '../../../src/processors/evidence-limits.js';
import { refuseOverLimits, slottedFiles } from '../../../src/processors/slotted-files.js';
import { type EvidenceLimits, ProcessorError } from '../../../src/processors/types.js';
import { attached } from '../../helpers/evidence-files.js';

const limits: EvidenceLimits = {
  slots: { receipt: 'receipt_slot', shipping_documentation: 'delivery_slot' },
  types: ['pdf', 'jpg'],
  maxFileBytes: 100,
  maxTotalBytes: 250,
  maxPages: 2,
  textLimits: {},
};
const processor = { name: 'example', title: 'Example' };
const file = (id: string, size: number, type: 'pdf' | 'png' | 'jpg', pages: number | null = null) =>
  attached(id, Buffer.alloc(size), type, 'receipt', { pages });

describe('slotted files', () => {
  it('are those with a slot for their category and a type the slots take, in order', () => {
    const receipt = file('file_a', 10, 'jpg');
    const png = file('file_b', 10, 'png');
    const delivery = { ...file('file_c', 10, 'pdf', 1), category: 'shipping_documentation' as const };
    const log = { ...file('file_d', 10, 'jpg'), category: 'access_activity_log' as const };
    expect(slottedFiles(limits, [receipt, png, delivery, log])).toEqual([
      { file: receipt, slot: 'receipt_slot' },
      { file: delivery, slot: 'delivery_slot' },
    ]);
    expect(slottedFiles(documentOnly, [receipt])).toEqual([]);
  });

  it.each([
    [
      'a file over the largest',
      [file('file_big', 101, 'jpg')],
      0,
      'Evidence file file_big (file_big.jpg) is 101 bytes; Example takes at most 100 a file.',
    ],
    [
      'a PDF over the most pages',
      [file('file_long', 10, 'pdf', 3)],
      0,
      'Evidence file file_long (file_long.pdf) has 3 pages; Example takes at most 2.',
    ],
    [
      'files and the response document over the total',
      [file('file_one', 100, 'jpg'), file('file_two', 100, 'jpg')],
      51,
      'The evidence files (file_one, file_two) and the response document weigh 251 bytes; ' +
        'Example takes at most 250 for one dispute.',
    ],
  ])('refuse %s, permanently, naming it', (_what, files, documentBytes, message) => {
    const refused = () => refuseOverLimits(processor, limits, slottedFiles(limits, files), documentBytes);
    expect(refused).toThrow(ProcessorError);
    expect(refused).toThrow(expect.objectContaining({ message, retryable: false, processor: 'example' }));
  });

  it('take anything within the limits, or without any', () => {
    const files = [file('file_one', 100, 'jpg'), file('file_two', 100, 'pdf', 2)];
    expect(() => refuseOverLimits(processor, limits, slottedFiles(limits, files), 50)).not.toThrow();
    const unlimited = { ...limits, maxFileBytes: null, maxTotalBytes: null, maxPages: null };
    const big = [file('file_big', 10_000, 'pdf', 500)];
    expect(() => refuseOverLimits(processor, unlimited, slottedFiles(unlimited, big), 10_000)).not.toThrow();
  });
});
