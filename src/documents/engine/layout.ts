import { contentWidth, documentGeometry } from '../../domain/document-geometry.js';
import type { DocumentBlock, EvidenceDocument, LabelledValue } from '../../domain/evidence-document.js';
import type { DrawnImage, EvidenceTable, TableRow } from '../../domain/evidence-tables.js';
import type { Drawing, FontStyle, ImageSource, Rgb } from './drawing.js';
import { fontFace } from './fonts.js';
import { colors, lineBox, Pages, type TextBox } from './pages.js';
import { Row } from './rows.js';
import { wrapText } from './text-lines.js';

const g = documentGeometry;
const left = g.margins.left;
const gap = g.cellPadding;

/**
 * The evidence document drawn by the engine: what the Typst layout (documents/evidence-layout.ts) draws,
 * in the same page, type and colours (domain/document-geometry.ts): the title and subtitle; the summary as
 * label and value rows; headings and the template's paragraphs; item tables whose title and column labels
 * are drawn again above every page they continue on, an item's cells kept with its detail and image;
 * images under their title and caption; "Page n of m" with the dispute at the foot of every page.
 *
 * Text is laid out as data: every string is measured and cut into lines here, and reaches the PDF as the
 * characters to draw (documents/engine/pdf-writer.ts). Only text the engine draws as written comes here
 * (documents/engine/fonts.ts, `drawable`); documents/pdf.ts gives Typst the rest.
 */
export function drawEvidence(model: EvidenceDocument, images: ImageSource[]): Drawing {
  // An appended file's pages are numbered after the document's own, which are known once laid out: laid
  // out again while the count moves (a cell's digits can change where a page breaks), three times at most.
  let ownPages = 1;
  let pages = layOut(model, ownPages);
  for (let again = 0; again < 2 && pages.pages.length !== ownPages && hasAppended(model); again++) {
    ownPages = pages.pages.length;
    pages = layOut(model, ownPages);
  }
  footers(model, pages);
  return {
    width: g.pageWidth,
    height: g.pageHeight,
    pages: pages.pages,
    images,
    title: `${model.title}: ${model.pageLabel}`,
    author: 'Rebuttal',
    created: model.generatedAt,
  };
}

function layOut(model: EvidenceDocument, ownPages: number): Pages {
  const pages = new Pages();
  lines(pages, model.title, 20, 'bold', colors.text, 0);
  lines(pages, model.subtitle, g.bodySize, 'regular', colors.muted, 4);
  pages.spaceBelow(14);
  pages.space(0);
  pairs(pages, model.summary);
  model.blocks.forEach((block) => {
    drawBlock(pages, block, ownPages);
  });
  return pages;
}

function drawBlock(pages: Pages, block: DocumentBlock, ownPages: number): void {
  if (block.kind === 'heading') {
    lines(pages, block.text, 13, 'bold', colors.text, 18);
    pages.spaceBelow(8);
  } else if (block.kind === 'paragraph') {
    lines(pages, block.text, g.bodySize, 'regular', colors.text, 7);
    pages.spaceBelow(g.paragraphGap);
  } else if (block.kind === 'image') {
    imageBlock(pages, block);
  } else {
    pages.space(18);
    const header = block.kind === 'pairs' ? titleHeader(block.title) : itemsHeader(block.table);
    const rows = block.kind === 'pairs' ? pairRows(block.rows) : itemRows(block.table, ownPages);
    // The header sticks to the first row, and is drawn again above each page the table continues on.
    pages.keep(header.height + (rows[0]?.firstPiece ?? 0));
    header.draw(pages, pages.y);
    pages.y += header.height;
    pages.continued = (bottom) => header.draw(pages, bottom - header.height);
    for (const row of rows) row.draw(pages);
    pages.continued = null;
    pages.spaceBelow(10);
  }
}

/** Text in lines across the page, flowing onto the next pages. */
function lines(pages: Pages, text: string, size: number, font: FontStyle, color: Rgb, above: number): void {
  pages.space(above);
  const box = { lines: wrapText(text, fontFace(font), size, contentWidth), x: left, font, size, color };
  new Row([box], size, null, { top: 0, bottom: 0 }, true).draw(pages);
}

/** A unit drawn as one: a row, or a row and what sticks to it (an item's detail, its image). */
interface Unit {
  firstPiece: number;
  draw(pages: Pages): void;
}

interface Header {
  height: number;
  draw(pages: Pages, top: number): void;
}

function titleHeader(title: string): Header {
  const row = new Row([box(title, 12, 'bold', colors.text, left, contentWidth)], 12, null);
  return {
    height: row.height,
    draw: (pages, top) => drawAt(pages, row, top),
  };
}

function itemsHeader(table: EvidenceTable): Header {
  const title = titleHeader(table.title);
  const widths = columnWidths(table);
  const labels = new Row(
    cells(
      table.columns.map((column) => column.label.toUpperCase()),
      widths,
      7.5,
      'bold',
      colors.muted,
    ),
    7.5,
    { width: 1, color: colors.strongRule },
  );
  return {
    height: title.height + labels.height,
    draw(pages, top) {
      title.draw(pages, top);
      drawAt(pages, labels, top + title.height);
    },
  };
}

/** A row drawn at a given top, whatever the page's cursor (a header in the top margin). */
function drawAt(pages: Pages, row: Row, top: number): void {
  const y = pages.y;
  pages.y = top;
  row.draw(pages);
  pages.y = y;
}

function pairRows(rows: LabelledValue[]): Row[] {
  return rows.map(
    (pair) =>
      new Row(
        [
          box(pair.label, g.bodySize, 'bold', colors.muted, left, g.labelWidth - 2 * gap),
          box(
            pair.value,
            g.bodySize,
            'regular',
            colors.text,
            left + g.labelWidth,
            contentWidth - g.labelWidth,
          ),
        ],
        g.bodySize,
        { width: 0.5, color: colors.rule },
      ),
  );
}

function pairs(pages: Pages, rows: LabelledValue[]): void {
  for (const row of pairRows(rows)) row.draw(pages);
}

function itemRows(table: EvidenceTable, ownPages: number): Unit[] {
  const widths = columnWidths(table);
  return table.rows.map((item) => {
    const texts = cellsOf(item, ownPages);
    const boxes = cells(texts, widths, g.cellSize, 'regular', colors.text);
    if (item.detail === null && !item.image)
      return new Row(boxes, g.cellSize, { width: 0.5, color: colors.rule });
    return withDetail(new Row(boxes, g.cellSize, null), item);
  });
}

/**
 * An item's cells, and under them its detail and image: the cells are never parted from the detail's
 * first line, and the detail, which may be long, flows onto the next pages.
 */
function withDetail(row: Row, item: TableRow): Unit {
  const indent = g.detailIndent;
  const detail = new Row(
    item.detail === null
      ? []
      : [box(item.detail, g.cellSize, 'regular', colors.detail, left + indent, contentWidth - indent)],
    g.cellSize,
    item.image ? null : { width: 0.5, color: colors.rule },
    { top: 1, bottom: item.image ? 0 : 3 },
    true,
  );
  const image = item.image;
  return {
    firstPiece: row.firstPiece + (item.detail === null ? 0 : detail.firstPiece),
    draw(pages) {
      pages.keep(this.firstPiece);
      row.draw(pages);
      if (item.detail !== null) detail.draw(pages);
      if (!image) return;
      pages.y += 4;
      drawImage(pages, left + indent, image);
      pages.y += 5;
      pages.rule(pages.y, 0.5, colors.rule);
    },
  };
}

/**
 * An image at its top-left corner, on the next page when it does not fit below; scaled down to the page
 * when it is taller than a page's text (an image under a long caption).
 */
function drawImage(pages: Pages, x: number, image: DrawnImage): void {
  pages.keep(image.height);
  const scale = Math.min(1, (pages.bottom - pages.y) / image.height);
  pages.image(x, pages.y, image.width * scale, image.height * scale, imageIndex(image));
  pages.y += image.height * scale;
}

/**
 * An evidence image under its category and caption, all on one page (the model leaves the image the room
 * its caption does not take); should they not fit after all, the caption flows and the image follows it.
 */
function imageBlock(pages: Pages, block: Extract<DocumentBlock, { kind: 'image' }>): void {
  pages.space(18);
  const title = new Row([box(block.title, 13, 'bold', colors.text, left, contentWidth)], 13, null, {
    top: 0,
    bottom: 4,
  });
  const caption = new Row(
    [box(block.caption, g.bodySize, 'regular', colors.muted, left, contentWidth)],
    g.bodySize,
    null,
    { top: 0, bottom: 8 },
  );
  pages.keep(title.height + caption.height + block.image.height);
  title.draw(pages);
  caption.draw(pages);
  drawImage(pages, left, block.image);
}

/** The model names images `/files/<n>.<type>`, n their index in `files.images` (domain/evidence-attachments.ts). */
function imageIndex(image: DrawnImage): number {
  return Number(/\/(\d+)\.[a-z]+$/.exec(image.path)?.[1]);
}

function box(text: string, size: number, font: FontStyle, color: Rgb, x: number, width: number): TextBox {
  return { lines: wrapText(text, fontFace(font), size, width), x, font, size, color };
}

function columnWidths(table: EvidenceTable): number[] {
  const total = table.columns.reduce((sum, column) => sum + column.weight, 0);
  const available = contentWidth - (table.columns.length - 1) * 2 * gap;
  return table.columns.map((column) => (available * column.weight) / total);
}

function cells(texts: string[], widths: number[], size: number, font: FontStyle, color: Rgb): TextBox[] {
  let x = left;
  return widths.map((width, index) => {
    const cell = box(texts[index] ?? '', size, font, color, x, width);
    x += width + 2 * gap;
    return cell;
  });
}

/** An attachment's last cell says where its pages are, after the document's own. */
function cellsOf(item: TableRow, ownPages: number): string[] {
  if (!item.appended) return item.cells;
  const { first, last } = item.appended;
  return [
    ...item.cells.slice(0, -1),
    `Pages ${ownPages + first} to ${ownPages + last} of this file, after this document`,
  ];
}

function hasAppended(model: EvidenceDocument): boolean {
  return model.blocks.some((block) => block.kind === 'table' && block.table.rows.some((row) => row.appended));
}

/** The dispute and "Page n of m" at the foot of every page. */
function footers(model: EvidenceDocument, pages: Pages): void {
  const size = 8;
  const face = fontFace('regular');
  const baseline = g.pageHeight - g.margins.bottom + 12 + lineBox(face, size);
  const count = pages.pages.length;
  pages.pages.forEach((ops, index) => {
    const number = `Page ${index + 1} of ${count}`;
    const numberWidth = face.width(number, size);
    const labels = wrapText(model.pageLabel, face, size, contentWidth - numberWidth - 2 * gap);
    const color = colors.muted;
    // A long dispute id wraps downwards into the margin rather than lose its end.
    labels.forEach((text, line) => {
      ops.push({
        kind: 'text',
        x: left,
        y: baseline + line * (size + 2),
        size,
        font: 'regular',
        color,
        text,
      });
    });
    ops.push({
      kind: 'text',
      x: left + contentWidth - numberWidth,
      y: baseline,
      size,
      font: 'regular',
      color,
      text: number,
    });
  });
}
