import { describe, expect, it } from 'vitest';
import type { EvidenceLimits } from '../../src/domain/evidence-files.js';
import {
  type EvidenceWarning,
  evidenceWarnings,
  refuses,
  type WarnedFile,
} from '../../src/domain/evidence-warnings.js';
import { processors } from '../../src/domain/vocabulary.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { contractFiles, expectedSlots } from '../helpers/evidence-files.js';

/** A processor with slots for receipts (PDF and PNG) and shipping documents, as limits are written. */
const limits: EvidenceLimits = {
  slots: { receipt: 'receipt_file', shipping_documentation: 'shipping_file' },
  types: ['pdf', 'png'],
  maxFileBytes: 1000,
  maxTotalBytes: 5000,
  maxPages: 10,
  textLimits: { uncategorized_text: 20, '*': 50 },
};

const file = (overrides: Partial<WarnedFile>): WarnedFile => ({
  id: 'file_a',
  category: 'receipt',
  filename: 'receipt.png',
  type: 'png',
  size: 100,
  pages: null,
  ...overrides,
});

const smallDocument = { bytes: 500, pages: 2 };

describe('evidenceWarnings', () => {
  const cases: [
    string,
    Partial<{ evidence: Record<string, string | number | boolean>; files: WarnedFile[] }> & {
      document?: { bytes: number; pages: number | null };
      limits?: EvidenceLimits;
    },
    EvidenceWarning[],
  ][] = [
    ['nothing over any limit', { evidence: { uncategorized_text: 'short' }, files: [file({})] }, []],
    [
      'a text over its own limit',
      { evidence: { uncategorized_text: 'x'.repeat(21) } },
      [
        {
          code: 'text_too_long',
          message: 'uncategorized_text is 21 characters; acme keeps at most 20 and cuts the rest.',
          field: 'uncategorized_text',
        },
      ],
    ],
    [
      'a text over the limit of any other key',
      { evidence: { product_description: 'y'.repeat(51), amount: 12 } },
      [
        {
          code: 'text_too_long',
          message: 'product_description is 51 characters; acme keeps at most 50 and cuts the rest.',
          field: 'product_description',
        },
      ],
    ],
    [
      'a slotted file over the size limit',
      { files: [file({ size: 1001 })] },
      [
        {
          code: 'file_too_large',
          message: "'receipt.png' (Receipt) is 1,001 bytes; acme takes at most 1,000 a file.",
          field: 'file_a',
        },
      ],
    ],
    [
      'a slotted PDF over the page limit',
      { files: [file({ type: 'pdf', filename: 'r.pdf', pages: 11 })] },
      [
        {
          code: 'too_many_pages',
          message: "'r.pdf' (Receipt) has 11 pages; acme takes at most 10.",
          field: 'file_a',
        },
      ],
    ],
    [
      'a type the slot does not take: into the document, whatever its size',
      { files: [file({ type: 'jpg', filename: 'r.jpg', size: 4000 })] },
      [
        {
          code: 'file_type_not_taken',
          message:
            "'r.jpg' (Receipt) is jpg, which acme does not take: it is shown in the response document instead.",
          field: 'file_a',
        },
      ],
    ],
    [
      'a category without a slot',
      { files: [file({ category: 'access_activity_log', filename: 'log.png' })] },
      [
        {
          code: 'no_file_slot',
          message:
            "'log.png' (Access activity log) has no acme slot of its own: it is shown in the response document.",
          field: 'file_a',
        },
      ],
    ],
    [
      'the response document over the file limit and the page limit',
      { document: { bytes: 1200, pages: 12 } },
      [
        {
          code: 'document_too_large',
          message: 'The response document is 1,200 bytes; acme takes at most 1,000 a file.',
          field: null,
        },
        {
          code: 'document_too_large',
          message: 'The response document has 12 pages; acme takes at most 10.',
          field: null,
        },
      ],
    ],
    ['pages not counted are not checked', { document: { bytes: 500, pages: null } }, []],
    [
      'the slotted files and the document at the total: not over it; a file in the document not counted twice',
      {
        files: [
          file({ id: 'file_a', size: 900 }),
          file({ id: 'file_b', category: 'shipping_documentation', size: 900 }),
          file({ id: 'file_c', size: 900 }),
          file({ id: 'file_d', size: 900 }),
          file({ id: 'file_e', size: 900 }),
          file({ id: 'file_f', category: 'uncategorized', size: 900 }),
        ],
      },
      [
        {
          code: 'no_file_slot',
          message:
            "'receipt.png' (Uncategorized) has no acme slot of its own: it is shown in the response document.",
          field: 'file_f',
        },
      ],
    ],
    [
      'no slots and no limits: every file is in the document by design, nothing to say',
      {
        limits: {
          slots: {},
          types: ['pdf'],
          maxFileBytes: null,
          maxTotalBytes: null,
          maxPages: null,
          textLimits: {},
        },
        evidence: { uncategorized_text: 'z'.repeat(100_000) },
        files: [file({ size: 10_000_000 })],
        document: { bytes: 10_000_000, pages: 500 },
      },
      [],
    ],
  ];

  it.each(cases)('%s', (_, given, expected) => {
    const warnings = evidenceWarnings({
      processor: 'acme',
      limits: given.limits ?? limits,
      evidence: given.evidence ?? {},
      files: given.files ?? [],
      document: given.document ?? smallDocument,
    });
    expect(warnings).toEqual(expected);
  });

  it('counts the total over the limit past its last byte', () => {
    const files = [file({ id: 'file_a', size: 1000 }), file({ id: 'file_b', size: 1000 })];
    const warnings = evidenceWarnings({
      processor: 'acme',
      limits,
      evidence: {},
      files,
      document: { bytes: 3001, pages: 1 },
    });
    expect(warnings).toEqual([
      {
        code: 'document_too_large',
        message: 'The response document is 3,001 bytes; acme takes at most 1,000 a file.',
        field: null,
      },
      {
        code: 'total_too_large',
        message: 'The files and the response document weigh 5,001 bytes; acme takes at most 5,000 in all.',
        field: null,
      },
    ]);
  });

  it('refuses what the processor refuses, and only that', () => {
    const codes = (
      [
        'text_too_long',
        'file_too_large',
        'too_many_pages',
        'file_type_not_taken',
        'no_file_slot',
        'document_too_large',
        'total_too_large',
      ] as const
    ).filter((code) => refuses({ code, message: '', field: null }));
    expect(codes).toEqual(['file_too_large', 'too_many_pages', 'document_too_large', 'total_too_large']);
  });
});

describe('evidenceWarnings with each adapter on main', () => {
  const registry = createAdapterRegistry();
  it.each(processors)('%s: each contract file in its slot or noted as in the document', async (name) => {
    const adapter = registry.forDispute({ source: name });
    const files = await contractFiles();
    const warnings = evidenceWarnings({
      processor: name,
      limits: adapter.evidenceLimits,
      evidence: { uncategorized_text: 'Delivered on 2026-09-18.' },
      files,
      document: { bytes: 60_000, pages: 3 },
    });
    // Small files, a short text: only the files the processor takes no slot for are noted, where it has
    // slots at all.
    const slotless = Object.keys(adapter.evidenceLimits.slots).length === 0;
    const noted = slotless
      ? []
      : files.filter((file) => !expectedSlots(adapter, [file]).length).map((file) => file.id);
    expect(warnings.map((warning) => warning.field)).toEqual(noted);
    expect(warnings.filter(refuses)).toEqual([]);
  });
});
