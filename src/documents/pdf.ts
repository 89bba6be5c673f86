import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Content, CustomTableLayout, Style, TableCell } from 'pdfmake';
import pdfmake from 'pdfmake';
import type { DocumentBlock, EvidenceDocument, LabelledValue } from '../domain/evidence-document.js';
import type { EvidenceTable } from '../domain/evidence-tables.js';

/**
 * The evidence document as a PDF, laid out by pdfmake: US Letter, a title and subtitle, the summary as a
 * two-column table, the template's text, item tables whose title and column labels repeat on every page
 * they continue on, and "Page n of m" with the dispute's id at the foot of every page. The same model
 * gives the same bytes: the creation date is the model's `generatedAt`, and pdfkit derives the file ID
 * from the document's metadata.
 */
export async function renderPdf(model: EvidenceDocument): Promise<Buffer> {
  configure();
  return pdfmake.createPdf(definition(model)).getBuffer();
}

// ---------------------------------------------------------------------------------------------------------
// Fonts: Roboto as pdfmake ships it (it covers Latin, Greek and Cyrillic; not CJK, which would show as
// empty boxes), read once per process into pdfmake's in-memory file system.

const fontFiles = {
  normal: 'Roboto-Regular.ttf',
  bold: 'Roboto-Medium.ttf',
  italics: 'Roboto-Italic.ttf',
  bolditalics: 'Roboto-MediumItalic.ttf',
};

/** pdfmake's in-memory file system: present on its Node build, left out of @types/pdfmake. */
interface VirtualFileSystem {
  writeFileSync(name: string, content: Buffer): void;
}

let configured = false;

function configure(): void {
  if (configured) return;
  const folder = join(
    dirname(createRequire(import.meta.url).resolve('pdfmake/package.json')),
    'fonts',
    'Roboto',
  );
  const files = (pdfmake as unknown as { virtualfs: VirtualFileSystem }).virtualfs;
  for (const file of Object.values(fontFiles)) {
    files.writeFileSync(file, withoutLayoutTables(readFileSync(join(folder, file))));
  }
  pdfmake.setFonts({ Roboto: fontFiles });
  // Everything the document needs is in memory: no URL is fetched and no other file read, whatever the text.
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy(() => false);
  configured = true;
}

const layoutTables = new Set(['GSUB', 'GPOS', 'GDEF']);

/**
 * The font without its OpenType layout tables. fontkit decodes them afresh for every document (about
 * 25 ms a font, half the time of a whole evidence PDF) and they only add kerning and ligatures, which the
 * evidence does without; without ligatures, text copied from the PDF is also exactly the text written.
 */
function withoutLayoutTables(font: Buffer): Buffer {
  const kept: { tag: string; checksum: number; data: Buffer }[] = [];
  for (let index = 0; index < font.readUInt16BE(4); index++) {
    const entry = 12 + index * 16;
    const tag = font.toString('latin1', entry, entry + 4);
    if (layoutTables.has(tag)) continue;
    const offset = font.readUInt32BE(entry + 8);
    kept.push({
      tag,
      checksum: font.readUInt32BE(entry + 4),
      data: font.subarray(offset, offset + font.readUInt32BE(entry + 12)),
    });
  }
  const directory = Buffer.alloc(12 + kept.length * 16);
  font.copy(directory, 0, 0, 4);
  const power = 2 ** Math.floor(Math.log2(kept.length));
  directory.writeUInt16BE(kept.length, 4);
  directory.writeUInt16BE(power * 16, 6);
  directory.writeUInt16BE(Math.log2(power), 8);
  directory.writeUInt16BE((kept.length - power) * 16, 10);
  const tables: Buffer[] = [];
  let offset = directory.length;
  kept.forEach(({ tag, checksum, data }, index) => {
    const entry = 12 + index * 16;
    directory.write(tag, entry, 'latin1');
    directory.writeUInt32BE(checksum, entry + 4);
    directory.writeUInt32BE(offset, entry + 8);
    directory.writeUInt32BE(data.length, entry + 12);
    // Tables start on 4-byte boundaries.
    const padded = Buffer.alloc((data.length + 3) & ~3);
    data.copy(padded);
    tables.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([directory, ...tables]);
}

// ---------------------------------------------------------------------------------------------------------
// Layout. Styles are few and set on whole tables rather than cells: pdfmake resolves every text property
// through its stack of styles, cell by cell, and that is most of its time.

const page = { width: 612, height: 792, margins: [54, 54, 54, 60] as [number, number, number, number] };
const contentWidth = page.width - page.margins[0] - page.margins[2];
const contentHeight = page.height - page.margins[1] - page.margins[3];
const cellPadding = 4;
const bodyFontSize = 9.5;
const cellFontSize = 8.5;
const lineHeight = 1.25;
const detailIndent = 10;

const colors = {
  text: '#1f2328',
  muted: '#59636e',
  rule: '#d1d9e0',
  strongRule: '#818b98',
  detail: '#3d444d',
};

const styles: Record<string, Style> = {
  title: { fontSize: 20, bold: true, margin: [0, 0, 0, 2] },
  subtitle: { fontSize: 9.5, color: colors.muted, margin: [0, 0, 0, 14] },
  heading: { fontSize: 13, bold: true, margin: [0, 18, 0, 6] },
  tableTitle: { fontSize: 12, bold: true, color: colors.text },
  columnLabel: { fontSize: 7.5, bold: true, color: colors.muted },
  label: { bold: true, color: colors.muted },
};

function definition(model: EvidenceDocument): Parameters<typeof pdfmake.createPdf>[0] {
  return {
    pageSize: 'LETTER',
    pageMargins: page.margins,
    info: {
      title: `${model.title}: ${model.pageLabel}`,
      subject: model.subtitle,
      creator: 'Rebuttal',
      producer: 'Rebuttal',
      creationDate: model.generatedAt,
    },
    defaultStyle: { font: 'Roboto', fontSize: bodyFontSize, lineHeight, color: colors.text },
    styles,
    footer: (current, count) => ({
      margin: [page.margins[0], 24, page.margins[2], 0],
      fontSize: 8,
      color: colors.muted,
      columns: [{ text: model.pageLabel }, { text: `Page ${current} of ${count}`, alignment: 'right' }],
    }),
    content: [
      { text: model.title, style: 'title' },
      { text: model.subtitle, style: 'subtitle' },
      pairsTable(null, model.summary),
      ...model.blocks.map(blockContent),
    ],
  };
}

function blockContent(block: DocumentBlock): Content {
  switch (block.kind) {
    case 'heading':
      return { text: block.text, style: 'heading' };
    case 'paragraph':
      return { text: block.text, margin: [0, 0, 0, 7] };
    case 'pairs':
      return pairsTable(block.title, block.rows);
    case 'table':
      return itemsTable(block.table);
  }
}

const spanning = (cell: TableCell, columns: number): TableCell[] => [
  cell,
  ...Array.from({ length: columns - 1 }, () => ''),
];

/** The table's title as its first header row: it repeats on every page the table continues on. */
const titleRow = (title: string, columns: number) =>
  spanning({ text: title, style: 'tableTitle', colSpan: columns, margin: [0, 0, 0, 3] }, columns);

/** Rules between rows only; the first column flush with the text around the table. */
function rowsLayout(ruleAbove: (row: number) => number): CustomTableLayout {
  return {
    hLineWidth: ruleAbove,
    vLineWidth: () => 0,
    hLineColor: () => colors.rule,
    paddingLeft: (column) => (column === 0 ? 0 : cellPadding),
    paddingRight: () => cellPadding,
    paddingTop: () => 3,
    paddingBottom: () => 3,
  };
}

/** Label and value rows: the summary, and the evidence fields under their title. */
function pairsTable(title: string | null, rows: LabelledValue[]): Content {
  const body: TableCell[][] = rows.map((row) => [{ text: row.label, style: 'label' }, row.value]);
  const labelWidth = 150;
  const widths = [labelWidth, contentWidth - labelWidth - 3 * cellPadding];
  if (title === null) return { table: { widths, body }, layout: rowsLayout(() => 0.5) };
  const [first] = rows;
  const keepFirst =
    first !== undefined && fitsOnHalfPage(textHeight(first.value, widths[1] ?? 0, bodyFontSize));
  return {
    margin: [0, 18, 0, 4],
    table: {
      headerRows: 1,
      keepWithHeaderRows: keepFirst ? 1 : 0,
      widths,
      body: [titleRow(title, 2), ...body],
    },
    layout: rowsLayout((row) => (row === 0 ? 0 : 0.5)),
  };
}

function itemsTable(table: EvidenceTable): Content {
  const count = table.columns.length;
  const totalWeight = table.columns.reduce((sum, column) => sum + column.weight, 0);
  // Fixed widths: given '*', pdfmake widens a column to its longest unbreakable word (a URL, an id).
  const available = contentWidth - (2 * count - 1) * cellPadding;
  const widths = table.columns.map((column) => (available * column.weight) / totalWeight);
  const body: TableCell[][] = [
    titleRow(table.title, count),
    table.columns.map((column) => ({ text: column.label.toUpperCase(), style: 'columnLabel' })),
  ];
  // A row with a detail is one cell across the table holding both, so that a page break cannot part them;
  // its columns line up with the header's.
  for (const row of table.rows) {
    if (!row.detail) {
      // A copy: pdfmake writes its layout into the rows it is given, and the model must stay as it was.
      body.push([...row.cells]);
      continue;
    }
    const columns: Content = {
      columnGap: 2 * cellPadding,
      columns: row.cells.map((text, column) => ({ text, width: widths[column] ?? 0 })),
    };
    const detail: Content = { text: row.detail, color: colors.detail, margin: [detailIndent, 3, 0, 1] };
    body.push(spanning({ colSpan: count, stack: [columns, detail] }, count));
  }
  const layout = rowsLayout((row) => (row <= 1 ? 0 : row === 2 ? 1 : 0.5));
  layout.hLineColor = (row) => (row === 2 ? colors.strongRule : colors.rule);
  const detailWidth = contentWidth - cellPadding - detailIndent;
  const keepWhole = table.rows.every((row) => {
    const cells = Math.max(
      ...row.cells.map((cell, column) => textHeight(cell, widths[column] ?? 0, cellFontSize)),
    );
    return fitsOnHalfPage(
      cells + (row.detail === null ? 0 : textHeight(row.detail, detailWidth, cellFontSize)),
    );
  });
  return {
    margin: [0, 18, 0, 10],
    fontSize: cellFontSize,
    table: {
      headerRows: 2,
      // The first makes the first row unbreakable, the second every row: only for rows that surely fit.
      keepWithHeaderRows: keepWhole ? 1 : 0,
      dontBreakRows: keepWhole,
      widths,
      body,
    },
    layout,
  };
}

/**
 * A generous estimate of the height of `text` set in `width`: 0.7 em a character where Roboto averages
 * about 0.5, and a line 1.2 times what pdfmake gives it.
 */
function textHeight(text: string, width: number, fontSize: number): number {
  const perLine = Math.max(1, Math.floor(width / (fontSize * 0.7)));
  const lines = text
    .split('\n')
    .reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / perLine)), 0);
  return lines * fontSize * lineHeight * 1.2;
}

/**
 * pdfmake drops the content of an unbreakable row taller than a page, without a word. Rows are made
 * unbreakable (kept whole on one page) only when the estimate puts them under half a page.
 */
const fitsOnHalfPage = (height: number) => height <= contentHeight / 2;
