/**
 * The response document's page and type, in points: one home for what the layout draws
 * (documents/evidence-layout.ts) and what the size measure counts with (domain/document-size.ts).
 */
export const documentGeometry = {
  /** US Letter. */
  pageWidth: 612,
  pageHeight: 792,
  margins: { left: 54, right: 54, top: 54, bottom: 60 },
  bodySize: 9.5,
  cellSize: 8.5,
  /** The label column of the summary and the evidence fields. */
  labelWidth: 150,
  cellPadding: 4,
  /** How far an item's detail is set in under its row. */
  detailIndent: 10,
  /**
   * Between two paragraphs of the template's text, from the last line's baseline to the next line's top:
   * about half a line more than between two lines, so that a blank line in the template reads as one.
   */
  paragraphGap: 12,
} as const;

export const contentWidth =
  documentGeometry.pageWidth - documentGeometry.margins.left - documentGeometry.margins.right;
export const contentHeight =
  documentGeometry.pageHeight - documentGeometry.margins.top - documentGeometry.margins.bottom;
