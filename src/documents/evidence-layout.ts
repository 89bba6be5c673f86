import { documentGeometry } from '../domain/document-geometry.js';

const g = documentGeometry;

/**
 * The evidence document's layout, in Typst (https://typst.app/docs). It reads the document model
 * (domain/evidence-document.ts) from `/document.json` and never takes text from anywhere else: every
 * string a merchant or cardholder wrote reaches the page as a JSON string, set as text, so Typst's own
 * markup in it (`#`, `*`, `$`, `[`, `<label>`, `@ref`) is shown as written and never evaluated.
 *
 * US Letter; a title and subtitle; the summary as label and value rows; the template's text; item tables
 * whose title and column labels repeat on every page they continue on; "Page n of m" with the dispute at
 * the foot of every page. Page and type sizes are numbers from domain/document-geometry.ts, which the size
 * measure shares; nothing else is interpolated.
 */
export const evidenceLayout = String.raw`
#let doc = json("/document.json")
#let colors = (
  text: rgb("#1f2328"),
  muted: rgb("#59636e"),
  rule: rgb("#d1d9e0"),
  strong-rule: rgb("#818b98"),
  detail: rgb("#3d444d"),
)
#let cell-padding = ${g.cellPadding}pt

#set document(title: doc.title + ": " + doc.pageLabel, author: "Rebuttal")
#set page(
  width: ${g.pageWidth}pt,
  height: ${g.pageHeight}pt,
  margin: (left: ${g.margins.left}pt, right: ${g.margins.right}pt, top: ${g.margins.top}pt, bottom: ${g.margins.bottom}pt),
  footer: context text(size: 8pt, fill: colors.muted)[
    #doc.pageLabel #h(1fr) Page #counter(page).display() of #counter(page).final().first()
  ],
)
// Each character from the first font that has it (documents/pdf.ts loads them). No hyphenation and no
// ligatures: text copied out of the PDF is exactly the text written.
#set text(
  font: ("Noto Sans", "Noto Sans S Chinese", "Noto Sans Korean", "Noto Sans Hebrew", "Noto Naskh Arabic", "Noto Emoji"),
  size: ${g.bodySize}pt,
  fill: colors.text,
  hyphenate: false,
  ligatures: false,
)
#set par(leading: 0.55em, spacing: 0.8em)
// Typst breaks lines only where words end; a long run without spaces (a URL, an id) may break anywhere
// rather than run off the page: each of its characters is an inline box, and lines break between boxes.
// Control characters have no glyph: they are left out rather than drawn as empty boxes (a tab is a space).
#show regex("[\\u{0}-\\u{8}\\u{B}\\u{C}\\u{E}-\\u{1F}\\u{7F}-\\u{84}\\u{86}-\\u{9F}]"): none
#show "\t": " "
#show regex("\\S{40,}"): it => it.text.clusters().map(box).join()
#set table(inset: (x, y) => (left: if x == 0 { 0pt } else { cell-padding }, right: cell-padding, y: 3pt))

// Label and value rows: the summary, and the evidence fields under their title (a header row that
// repeats when the table continues on the next page).
#let pairs(title, rows) = table(
  columns: (${g.labelWidth}pt, 1fr),
  stroke: (x, y) => if title == none or y > 0 { (bottom: 0.5pt + colors.rule) },
  ..if title != none {
    (table.header(table.cell(colspan: 2, text(size: 12pt, weight: "bold", title))),)
  },
  ..rows.map(row => (text(weight: "bold", fill: colors.muted, row.label), row.value)).flatten(),
)

// An item table is one column of rows, each row a grid of the item's cells and, under them, its detail:
// a page break cannot part an item from its detail, and every row's columns line up with the header's.
#let items(t) = {
  let row(cells) = grid(columns: t.columns.map(column => column.weight * 1fr), column-gutter: 2 * cell-padding, ..cells)
  set text(size: ${g.cellSize}pt)
  table(
    columns: 1fr,
    inset: (x: 0pt, y: 3pt),
    stroke: (x, y) => if y == 1 { (bottom: 1pt + colors.strong-rule) } else if y > 1 {
      (bottom: 0.5pt + colors.rule)
    },
    table.header(
      text(size: 12pt, weight: "bold", t.title),
      row(t.columns.map(column => text(size: 7.5pt, weight: "bold", fill: colors.muted, upper(column.label)))),
    ),
    ..t.rows.map(item => if item.detail == none { row(item.cells) } else {
      row(item.cells)
      pad(left: ${g.detailIndent}pt, top: 3pt, text(fill: colors.detail, item.detail))
    }),
  )
}

#text(size: 20pt, weight: "bold", doc.title)
#block(above: 4pt, below: 14pt, text(fill: colors.muted, doc.subtitle))
#pairs(none, doc.summary)
#for part in doc.blocks {
  if part.kind == "heading" {
    block(above: 18pt, below: 8pt, text(size: 13pt, weight: "bold", part.text))
  } else if part.kind == "paragraph" {
    block(below: 7pt, part.text)
  } else if part.kind == "pairs" {
    block(above: 18pt, below: 4pt, pairs(part.title, part.rows))
  } else {
    block(above: 18pt, below: 10pt, items(part.table))
  }
}
`;
