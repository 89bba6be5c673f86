import { contentHeight, contentWidth, documentGeometry } from '../domain/document-geometry.js';

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
 *
 * Rows are blocks side by side, not Typst tables: a table costs twice the layout time of the whole
 * document without it (docs/architecture.md "Response documents", Cost). What a table gave for free is
 * done here: a row is kept whole when it is short enough to, and a table's header is drawn again above
 * every page the table continues on.
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
#let gap = ${g.cellPadding}pt
#let width = ${contentWidth}pt

// A row is kept whole, moved to the next page rather than split, when it is surely shorter than a third
// of a page: its tallest cell estimated at half an em a byte (over, for any script) and 1.6 em a line.
// A longer row may break, or it would run off the page.
#let short(texts, widths, size) = {
  let lines = texts.zip(widths).map(((t, w)) => t.split("\n").map(line => calc.ceil(calc.max(1, line.len()) * 0.5 * size / w)).sum())
  calc.max(0, ..lines) * 1.6 * size < ${contentHeight / 3}pt
}
#let row(cells, texts, widths, size, rule, sticky: false) = block(
  above: 0pt, below: 0pt, width: 100%, inset: (y: 3pt), stroke: (bottom: rule), sticky: sticky,
  breakable: not short(texts, widths, size),
  stack(dir: ltr, spacing: 2 * gap, ..cells.zip(widths).map(((cell, w)) => block(width: w, cell))),
)

#let title-row(title) = block(above: 0pt, below: 0pt, inset: (y: 3pt), text(size: 12pt, weight: "bold", title))
#let column-widths(t) = {
  let total = t.columns.map(column => column.weight).sum()
  let available = width - (t.columns.len() - 1) * 2 * gap
  t.columns.map(column => available * column.weight / total)
}
#let items-header(t) = {
  title-row(t.title)
  let labels = t.columns.map(column => text(size: 7.5pt, weight: "bold", fill: colors.muted, upper(column.label)))
  row(labels, (), column-widths(t), 7.5pt, 1pt + colors.strong-rule)
}
#let header(part) = if part.kind == "pairs" { title-row(part.title) } else { items-header(part.table) }

// A table that began on an earlier page and ends on this one or later has its header drawn again at the
// top of this page (in the margin above the text, which a header fits in).
#let continued = context {
  let page = here().page()
  for start in query(<table-start>) {
    if start.location().page() < page {
      let end = query(selector(<table-end>).after(start.location())).first()
      if end.location().page() >= page { header(doc.blocks.at(start.value)) }
    }
  }
}

#set document(title: doc.title + ": " + doc.pageLabel, author: "Rebuttal")
#set page(
  width: ${g.pageWidth}pt,
  height: ${g.pageHeight}pt,
  margin: (left: ${g.margins.left}pt, right: ${g.margins.right}pt, top: ${g.margins.top}pt, bottom: ${g.margins.bottom}pt),
  header-ascent: 0pt,
  header: align(bottom, continued),
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

// Label and value rows: the summary, and the evidence fields under their title.
#let pairs(rows) = for pair in rows {
  let label = text(weight: "bold", fill: colors.muted, pair.label)
  row((label, pair.value), (pair.label, pair.value), (${g.labelWidth}pt - 2 * gap, width - ${g.labelWidth}pt), ${g.bodySize}pt, 0.5pt + colors.rule)
}

// An image the model names by a path in the workspace (documents/pdf.ts maps the bytes there), at the
// size in points the model gives (domain/evidence-attachments.ts).
#let picture(drawn) = image(drawn.path, width: drawn.width * 1pt, height: drawn.height * 1pt)

// An attachment whose pages follow the document: its place is known only once the document's own pages
// are counted, so its last cell is written here from the numbers the model gives.
#let cells-of(item) = {
  let appended = item.at("appended", default: none)
  if appended == none { return item.cells }
  let pages = context {
    let own = counter(page).final().first()
    [Pages #(own + appended.first) to #(own + appended.last) of this file, after this document]
  }
  item.cells.slice(0, -1) + (pages,)
}

// An item's cells, and under them its detail and its image: the cells stick to them, so that a page break
// never parts an item from its long text, which itself may break across pages.
#let items(t) = {
  set text(size: ${g.cellSize}pt)
  let widths = column-widths(t)
  for item in t.rows {
    let drawn = item.at("image", default: none)
    if item.detail == none and drawn == none {
      row(cells-of(item), item.cells, widths, ${g.cellSize}pt, 0.5pt + colors.rule)
    } else {
      row(cells-of(item), item.cells, widths, ${g.cellSize}pt, none, sticky: true)
      block(above: 0pt, below: 0pt, width: 100%, inset: (top: 1pt, bottom: 3pt, left: ${g.detailIndent}pt),
        stroke: (bottom: 0.5pt + colors.rule), {
          if item.detail != none { text(fill: colors.detail, item.detail) }
          if drawn != none { block(above: 4pt, below: 2pt, picture(drawn)) }
        })
    }
  }
}

// A table with a header: the header, marked where it starts, sticks to the first row; the end is marked
// after the last, for the page header above, in a block of its own: a mark alone between blocks would
// move to the next page with the block after it (an image that does not fit), and the header with it.
#let with-header(index, part, body) = {
  block(sticky: true, header(part) + [#metadata(index) <table-start>])
  body
  block(above: 0pt, below: 0pt, height: 0pt, [#metadata(index) <table-end>])
}

#text(size: 20pt, weight: "bold", doc.title)
#block(above: 4pt, below: 14pt, text(fill: colors.muted, doc.subtitle))
#pairs(doc.summary)
#for (index, part) in doc.blocks.enumerate() {
  if part.kind == "heading" {
    block(above: 18pt, below: 8pt, text(size: 13pt, weight: "bold", part.text))
  } else if part.kind == "paragraph" {
    block(below: ${g.paragraphGap}pt, part.text)
  } else if part.kind == "image" {
    // An evidence image under its category and caption, which stick to it: all on one page when they fit
    // (the model leaves the image what its caption does not take); a caption longer than a page flows, and
    // the image follows it.
    block(above: 18pt, below: 4pt, sticky: true, text(size: 13pt, weight: "bold", part.title))
    block(above: 4pt, below: 8pt, sticky: true, text(fill: colors.muted, part.caption))
    block(above: 8pt, below: 0pt, breakable: false, picture(part.image))
  } else {
    v(18pt, weak: true)
    if part.kind == "pairs" { with-header(index, part, pairs(part.rows)) } else {
      with-header(index, part, items(part.table))
    }
    v(10pt, weak: true)
  }
}
`;
