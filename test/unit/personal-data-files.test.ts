import { describe, expect, it } from 'vitest';
import type { DocumentFile } from '../../src/domain/evidence-attachments.js';
import {
  concernsPerson,
  personOf,
  redactDispute,
  redactDocumentInput,
} from '../../src/domain/personal-data.js';
import {
  documentWithoutFiles,
  namedFiles,
  objectWithoutFiles,
  redactFilename,
  removedFileProblem,
  withoutFiles,
} from '../../src/domain/personal-data-files.js';
import { bareDispute, generatedAt } from '../helpers/evidence-documents.js';

/** A person's files in a personal data request (domain/personal-data-files.ts), and file text in redaction. */

const ada = personOf({ email: 'ada@example.com', name: 'Ada Lovelace' });
const receipt = 'file_aaaaaaaaaaaaaaaaaaaa';
const policy = 'file_bbbbbbbbbbbbbbbbbbbb';
const image = 'file_cccccccccccccccccccc';
const signature = 'file_dddddddddddddddddddd';
const removed = new Set([receipt, image, signature]);

const evidence = {
  evidenceFiles: [
    { file: receipt, category: 'receipt' as const, description: null },
    { file: policy, category: 'refund_policy' as const, description: 'Policy' },
  ],
  fields: { order_id: 'A-1', signature, note: 'file_ is not a file' },
  productImages: [
    { url: 'https://shop.example/a.png', file: image, problem: null },
    { url: 'https://shop.example/b.png', file: null, problem: 'HTTP 404' },
  ],
};

describe('namedFiles', () => {
  it('names evidence files, fields holding a file id and kept product images, each once', () => {
    expect(namedFiles(evidence)).toEqual([receipt, policy, signature, image]);
    expect(namedFiles({ fields: { a: receipt, b: receipt } })).toEqual([receipt]);
    expect(namedFiles({})).toEqual([]);
  });
});

describe('withoutFiles', () => {
  it('drops the removed files’ entries and fields, and keeps their product images as URLs saying why', () => {
    expect(withoutFiles(evidence, removed)).toEqual({
      evidenceFiles: [evidence.evidenceFiles[1]],
      fields: { order_id: 'A-1', note: 'file_ is not a file' },
      productImages: [
        { url: 'https://shop.example/a.png', file: null, problem: removedFileProblem },
        evidence.productImages[1],
      ],
    });
  });

  it('adds no keys the evidence lacks, and changes nothing when nothing is removed', () => {
    expect(withoutFiles({ fields: { signature } }, removed)).toEqual({ fields: {} });
    expect(withoutFiles(evidence, new Set())).toBe(evidence);
  });
});

describe('redactFilename', () => {
  it('replaces a name that mentions the person whole, keeping its extension', () => {
    expect(redactFilename('Ada Lovelace receipt.png', ada.mentions)).toBe('[redacted].png');
    expect(redactFilename('for ada@example.com', ada.mentions)).toBe('[redacted]');
    expect(redactFilename('receipt.png', ada.mentions)).toBe('receipt.png');
  });

  it('keeps no part of a mention as the extension', () => {
    const jo = personOf({ email: 'jo@example.com', name: 'Jo' });
    expect(redactFilename('letter.jo', jo.mentions)).toBe('[redacted]');
  });
});

describe('objectWithoutFiles', () => {
  it('drops the removed files from a dispute object’s evidence_files, fields and the event’s response_files', () => {
    const object = {
      id: 'dp_1',
      evidence_files: [{ file: receipt, category: 'receipt', description: null }],
      fields: { signature, order_id: 'A-1' },
      response_files: [
        { file: receipt, filename: 'receipt.png' },
        { file: policy, filename: 'Policy for Ada Lovelace.pdf' },
      ],
    };
    expect(objectWithoutFiles(object, removed, ada.mentions)).toEqual({
      id: 'dp_1',
      evidence_files: [],
      fields: { order_id: 'A-1' },
      response_files: [{ file: policy, filename: '[redacted].pdf' }],
    });
  });
});

const documentFile = (id: string, overrides: Partial<DocumentFile> = {}): DocumentFile => ({
  id,
  category: 'receipt',
  description: null,
  filename: 'receipt.png',
  type: 'png',
  pages: null,
  pixels: { width: 10, height: 10 },
  slot: null,
  ...overrides,
});

describe('documentWithoutFiles and redactDocumentInput', () => {
  it('lists a removed attachment as removed, does not draw a removed product image, and redacts files’ text', () => {
    const input = {
      dispute: {
        ...bareDispute({ evidenceFiles: evidence.evidenceFiles }),
        productImages: evidence.productImages,
      },
      template: null,
      generatedAt,
      files: [
        documentFile(receipt),
        documentFile(policy, {
          description: 'Sent to Ada Lovelace',
          filename: 'Ada Lovelace.pdf',
          type: 'pdf',
        }),
      ],
      productImages: [
        {
          url: 'https://shop.example/a.png',
          file: { id: image, type: 'png' as const, pixels: null },
          problem: null,
        },
      ],
    };
    const redacted = redactDocumentInput(documentWithoutFiles(input, removed), ada, { theirs: false });
    expect(redacted.files).toEqual([
      documentFile(receipt, { removed: true }),
      documentFile(policy, { description: 'Sent to [redacted]', filename: '[redacted].pdf', type: 'pdf' }),
    ]);
    expect(redacted.productImages).toEqual([
      { url: 'https://shop.example/a.png', file: null, problem: removedFileProblem },
    ]);
    expect(redacted.dispute.evidenceFiles).toEqual([evidence.evidenceFiles[1]]);
  });
});

describe('evidence files’ descriptions are evidence text', () => {
  const columns = {
    customerName: null,
    customerEmail: null,
    customerPurchaseIp: null,
    addressZip: null,
    fields: {},
    products: [],
    correspondence: [],
    pastPayments: [],
    referenceUrl: null,
    evidenceFiles: [{ file: receipt, category: 'receipt' as const, description: 'Signed by Ada Lovelace' }],
  };

  it('a description that mentions the person makes the dispute concern them, and is redacted', () => {
    expect(concernsPerson(columns, ada)).toBe(true);
    expect(redactDispute(columns, ada).evidenceFiles).toEqual([
      { file: receipt, category: 'receipt', description: 'Signed by [redacted]' },
    ]);
  });
});
