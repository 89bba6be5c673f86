import { contentHeight, contentWidth, documentGeometry } from './document-geometry.js';
import { ApiError } from './errors.js';
import {
  buildEvidenceDocument,
  type DocumentBlock,
  documentText,
  type EvidenceDocumentInput,
  type EvidenceTemplate,
  type LabelledValue,
} from './evidence-document.js';
import { placeholderValues } from './evidence-format.js';
import type { EvidenceTable } from './evidence-tables.js';
import { bodyLines, scanPlaceholders } from './template-body.js';
import { bodyLine, measureText, type TextSize, wrappedLines } from './text-measure.js';

/**
 * How big a response document would be, measured without building it: a template body of
 * 100,000 characters may hold 20,000 placeholders, each filled with a field of 10,000 characters, so the
 * expansion itself is what must not be made. The template body is measured by counting: per line, its
 * literal text plus the length and width of each placeholder's value, each value measured once.
 * Everything else in the document is bounded by the evidence limits (512 KiB a dispute), so it is built
 * and measured as it is.
 *
 * The same expansion is the evidence dictionary's `uncategorized_text`, so bounding the document bounds it.
 * Both figures are upper bounds: characters are at least `documentText`'s, and pages over-estimate the PDF
 * layout (docs/api.md, "The size of the response document").
 *
 * Drawn images count by the height they are drawn at. The pages of attached PDFs, appended after the
 * document, do not count: the limits bound the layout's cost, and appended pages cost no layout, only a
 * copy bounded by the files' own limits (20 files, 20 MB a dispute).
 */

export interface DocumentSize {
  characters: number;
  pages: number;
}

/** DOCUMENT_MAX_CHARACTERS and DOCUMENT_MAX_PAGES (docs/operations.md, "Configuration"). */
export interface DocumentLimits {
  characters: number;
  pages: number;
}

// The layout's page and type (domain/document-geometry.ts); the line pitches are what its pages measure,
// rounded up.
const {
  bodySize,
  cellSize,
  cellPadding,
  labelWidth: pairLabelWidth,
  detailIndent,
  paragraphGap,
} = documentGeometry;
const cellLine = 11;
const rowPadding = 6;
/** A heading, a table's title, the space around them. */
const headingHeight = 40;
/** The title and subtitle. */
const titleHeight = 60;
const pairValueWidth = contentWidth - pairLabelWidth - 3 * cellPadding;
const detailWidth = contentWidth - cellPadding - detailIndent;
/** Words wrap whole, so lines end before they are full: a tenth more height covers it for ordinary text. */
const layoutLoss = 1.1;
const pairLabelTextWidth = pairLabelWidth - 2 * cellPadding;

/**
 * A part of the document as pages take it: a row short enough to be kept whole moves to the next page
 * when it does not fit (both layouts keep a row under a third of a page whole; counted here up to half a
 * page, since a row's height is estimated high), and the rest flows. Counting pages by packing the parts,
 * not by their total height, bounds what rows kept whole leave empty at the foot of a page: up to a third
 * of each page with rows just short of a third.
 */
interface Part {
  height: number;
  whole: boolean;
}

const flowing = (height: number): Part => ({ height, whole: false });
const row = (height: number): Part => ({ height, whole: height < contentHeight / 2 });

function pagesOf(parts: Part[]): number {
  let pages = 1;
  let used = 0;
  for (const part of parts) {
    const height = part.height * layoutLoss;
    if (part.whole && used > 0 && used + height > contentHeight) {
      pages += 1;
      used = 0;
    }
    used += height;
    while (used > contentHeight) {
      pages += 1;
      used -= contentHeight;
    }
  }
  return pages;
}

function pairsParts(rows: LabelledValue[]): Part[] {
  return rows.map((pair) => {
    const lines = Math.max(
      wrappedLines(pair.label, pairLabelTextWidth, bodySize),
      wrappedLines(pair.value, pairValueWidth, bodySize),
    );
    return row(lines * bodyLine + rowPadding);
  });
}

function tableParts(table: EvidenceTable): Part[] {
  const total = table.columns.reduce((sum, column) => sum + column.weight, 0);
  const available = contentWidth - (2 * table.columns.length - 1) * cellPadding;
  const widths = table.columns.map((column) => (available * column.weight) / total);
  const parts = [row(headingHeight + cellLine + rowPadding)];
  for (const item of table.rows) {
    const cells = item.cells.map((cell, at) => wrappedLines(cell, widths[at] ?? available, cellSize));
    parts.push(row(Math.max(1, ...cells) * cellLine + rowPadding));
    if (item.detail) parts.push(flowing(wrappedLines(item.detail, detailWidth, bodySize) * bodyLine + 4));
    if (item.image) parts.push(row(item.image.height + rowPadding));
  }
  return parts;
}

function blockParts(block: DocumentBlock): Part[] {
  if (block.kind === 'heading') return [row(headingHeight)];
  if (block.kind === 'paragraph')
    return [flowing(wrappedLines(block.text, contentWidth, bodySize) * bodyLine + paragraphGap)];
  if (block.kind === 'pairs') return [row(headingHeight), ...pairsParts(block.rows)];
  // An image under its title and caption: the caption may be long, and the image starts a page when the
  // rest of the page cannot hold it (counted as a page of its own when it is over half of one).
  if (block.kind === 'image') {
    const caption = flowing(headingHeight + wrappedLines(block.caption, contentWidth, bodySize) * bodyLine);
    const { height } = block.image;
    return [caption, height > contentHeight / 2 ? flowing(contentHeight) : row(height)];
  }
  return tableParts(block.table);
}

/** A placeholder's value as the measure needs it: its length, its width, and the line breaks it brings. */
interface ValueSize extends TextSize {
  length: number;
}

/**
 * The template body as filled, counted line by line: its characters (with a line break after each line,
 * which is more than the paragraphs it becomes keep), and its height. A filled line wraps to at most
 * floor(width / line width) + breaks + 1 lines; a blank line counts a whole line, more than the gap
 * between paragraphs it is.
 */
function bodyMeasure(template: EvidenceTemplate, sizeOf: (key: string) => ValueSize | undefined) {
  if (!template.body) return { characters: 0, height: 0 };
  let characters = 0;
  let lines = 0;
  const lineEms = contentWidth / bodySize;
  for (const line of bodyLines(template.body)) {
    // A section's line: its table is measured with the rest; the line stands for the gap before it.
    if (line.kind === 'section') {
      lines += 1;
      continue;
    }
    const { text } = line;
    let length = text.length;
    const size: TextSize = { ems: 0, breaks: 0 };
    const add = (part: TextSize) => {
      size.ems += part.ems;
      size.breaks += part.breaks;
    };
    // Only the literal text between placeholders is measured here; each value was measured once.
    let literal = 0;
    scanPlaceholders(text, (key, start, end) => {
      const value = sizeOf(key);
      length += (value?.length ?? 0) - (end - start);
      add(measureText(text, literal, start));
      if (value) add(value);
      literal = end;
    });
    add(measureText(text, literal));
    characters += length + 1;
    lines += Math.floor(size.ems / lineEms) + size.breaks + 1;
  }
  // The heading (the template's name, underlined, and its separator), and a separator after the last
  // paragraph of each of the at most four runs of text between sections.
  const heading = template.name || 'Response';
  return {
    characters: characters + 2 * heading.length + 3 + 4,
    height: headingHeight + lines * bodyLine + paragraphGap,
  };
}

/** The size of the document `input` renders to, without rendering it or filling the template body. */
export function measureDocument(input: EvidenceDocumentInput): DocumentSize {
  const { template } = input;
  // Without its body the document is the summary, the item tables and the fields, all bounded by the
  // evidence limits: built as they are, then the body is counted on top.
  const model = buildEvidenceDocument({ ...input, template: template && { ...template, body: null } });
  const rest = documentText(model).length;
  const parts = [
    flowing(titleHeight),
    ...pairsParts(model.summary),
    ...model.blocks.flatMap((block) => blockParts(block)),
  ];
  if (!template?.body) return { characters: rest, pages: pagesOf(parts) };

  const values = new Map<string, ValueSize>();
  for (const [key, value] of Object.entries(placeholderValues(input))) {
    values.set(key, { length: value.length, ...measureText(value) });
  }
  const body = bodyMeasure(template, (key) => values.get(key));
  return { characters: rest + body.characters, pages: pagesOf([...parts, flowing(body.height)]) };
}

/**
 * The least any document with this template can be: its body with every placeholder empty, under its
 * heading. What a template save is checked against, before any dispute's evidence is known.
 */
export function measureTemplate(template: EvidenceTemplate): DocumentSize {
  const body = bodyMeasure(template, () => undefined);
  return { characters: body.characters, pages: pagesOf([flowing(titleHeight + body.height)]) };
}

const count = (value: number) => value.toLocaleString('en-US');

/**
 * The refusal of a document over a limit, naming the limit and the setting that changes it; null when
 * within both. `subject` says whose document it is ("The response document would be").
 */
export function documentSizeProblem(
  size: DocumentSize,
  limits: DocumentLimits,
  subject = 'The response document would be',
): ApiError | null {
  if (size.characters > limits.characters) {
    return new ApiError(
      'invalid_request',
      `${subject} ${count(size.characters)} characters, over the limit of ${count(limits.characters)} (DOCUMENT_MAX_CHARACTERS).`,
    );
  }
  if (size.pages > limits.pages) {
    return new ApiError(
      'invalid_request',
      `${subject} about ${count(size.pages)} pages, over the limit of ${count(limits.pages)} (DOCUMENT_MAX_PAGES).`,
    );
  }
  return null;
}
