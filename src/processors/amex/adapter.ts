import { CsvError, parse } from 'csv-parse/sync';
import type { Logger } from '../../logger.js';
import type { AdapterContext } from '../connection.js';
import {
  type Capabilities,
  type EvidenceLimits,
  type NormalizedDispute,
  type ProcessorAdapter,
  ReportError,
  type SubmitEvidenceRequest,
  type SubmitEvidenceResult,
} from '../types.js';
import {
  CellProblem,
  disputeFromRow,
  fieldColumns,
  type ReportField,
  reportColumns,
  requiredFields,
} from './mapping.js';

/**
 * What the Disputes tool takes when documents are attached to a case
 * (americanexpress.com/us/merchant/support-center/disputes/adding-documents-to-a-case.html): at most 5 MB
 * a file, 25 MB in all, 20 pages and 5 files a case. The page names no file types; PDF and JPG are those
 * of Amex's own list that this service keeps (Checkout.com's scheme table, checkout.com/docs/payments/
 * process-disputes/dispute-evidence-file-requirements: PDF, JPG, TIFF, DOC, DOCX) (recommendation).
 * Nothing goes through an API, so there are no slots: every file is in the response document too, and
 * these limits tell the preview where the merchant's upload will be refused (docs/api.md, "Files").
 */
export const amexEvidenceLimits: EvidenceLimits = {
  slots: {},
  types: ['pdf', 'jpg'],
  maxFileBytes: 5 * 1024 * 1024,
  maxTotalBytes: 25 * 1024 * 1024,
  maxPages: 20,
  maxFiles: 5,
  textLimits: {},
};

/**
 * American Express, for merchants with a direct Amex relationship. Amex publishes no merchant disputes API
 * (docs/architecture.md, "Amex"): disputes come from the report the Disputes tool of the Amex Merchant Account
 * downloads (`dispute import`), and a submission produces the response package for the merchant to upload
 * in that tool (delivery `portal`). Nothing is ever called, so Amex accounts take no credentials.
 */
export class AmexAdapter implements ProcessorAdapter {
  readonly name = 'amex';
  readonly evidenceLimits: EvidenceLimits = amexEvidenceLimits;
  readonly capabilities: Capabilities = {
    list: false,
    get: false,
    submit: 'portal',
    fileUpload: false,
    accept: false,
    readOnly: false,
    pastPayments: false,
    push: false,
    kinds: ['chargeback', 'retrieval'],
    alerts: false,
    refund: false,
  };
  readonly #logger: Logger | undefined;

  constructor(context: AdapterContext = {}) {
    this.#logger = context.logger;
  }

  /** No credentials, or JSON null; anything else, `{}` included, is a mistake worth telling the operator. */
  checkCredentials(credentials: string | null): string | null {
    if (credentials === null) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(credentials);
    } catch {
      return 'the credentials file is not JSON, and Amex accounts take no credentials: connect without --credentials-file';
    }
    if (parsed === null) return null;
    return 'Amex accounts take no credentials (Amex has no disputes API to call): connect without --credentials-file';
  }

  /** Nothing is sent: the submission runner records and logs the package as waiting for upload. */
  async submitEvidence(_request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    return { reference: null, delivery: 'portal' };
  }

  /**
   * The Disputes tool's CSV: a header row naming the columns, then one row a case. A row that cannot be
   * read fails the whole file with its line and column; an empty file holds no disputes.
   */
  readReport(csv: string): NormalizedDispute[] {
    let records: NumberedRecord[];
    try {
      // csv-parse's types do not follow `info: true`, which wraps each record with where it was read.
      records = parse(csv, {
        bom: true,
        info: true,
        trim: true,
        skip_empty_lines: true,
        skip_records_with_empty_values: true,
      }) as unknown as NumberedRecord[];
    } catch (error) {
      if (error instanceof CsvError) throw new ReportError(`line ${error.lines}: ${error.message}`);
      throw error;
    }
    const [header, ...rows] = records;
    if (!header) return [];
    const columns = fieldColumns(header.record);
    const missing = requiredFields.find((field) => columns[field] === undefined);
    if (missing) {
      throw new ReportError(
        `line ${firstLine(header)}: the report has no "${reportColumns[missing][0]}" column`,
      );
    }
    const disputes = rows.map((row) => {
      const cells: Partial<Record<ReportField, string>> = {};
      for (const [field, index] of Object.entries(columns) as [ReportField, number][]) {
        cells[field] = row.record[index];
      }
      try {
        return disputeFromRow(cells);
      } catch (error) {
        if (!(error instanceof CellProblem)) throw error;
        const column = header.record[columns[error.field] ?? -1] ?? reportColumns[error.field][0];
        throw new ReportError(`line ${firstLine(row)}, column "${column}": ${error.message}`);
      }
    });
    this.#logger?.debug({ rows: disputes.length }, 'amex dispute report read');
    return disputes;
  }
}

interface NumberedRecord {
  record: string[];
  /** `lines`: the lines read up to the record's end. */
  info: { lines: number };
}

/** The line a record starts on: csv-parse counts to its end, and a quoted cell may hold line breaks. */
function firstLine({ record, info }: NumberedRecord): number {
  return info.lines - record.reduce((breaks, cell) => breaks + (cell.match(/\n/g)?.length ?? 0), 0);
}
