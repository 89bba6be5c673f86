import { contentHeight, contentWidth, documentGeometry } from './document-geometry.js';
import type { Product } from './evidence.js';
import type { EvidenceFileCategory, FileType } from './evidence-files.js';
import { humanize, joined } from './evidence-format.js';
import type { DrawnImage, EvidenceTable, TableRow } from './evidence-tables.js';
import type { PixelSize } from './image-size.js';
import { bodyLine, wrappedLines } from './text-measure.js';

/**
 * The evidence files in the response document (docs/api.md, "Files"): a file the processor takes in a
 * slot of its own is only listed; an image is drawn under its category and description; a PDF's pages
 * follow the document's and are announced in the list of attachments. Products' kept images are drawn
 * as thumbnails under their rows. The model names each image by a path this module makes
 * (`/files/0.png`), never by anything a merchant wrote; the renderer maps the bytes there.
 */

/** A file the document shows or lists: what it is, never its bytes (documents.input keeps these). */
export interface DocumentFile {
  id: string;
  category: EvidenceFileCategory;
  description: string | null;
  filename: string;
  type: FileType;
  pages: number | null;
  /** An image's size; null for a PDF, or an image whose header cannot be read (then it is not drawn). */
  pixels: PixelSize | null;
  /** The processor slot it is sent in on its own (`slotOf`); null: it is in the document. */
  slot: string | null;
  /** Removed since the document was first rendered (with a person's data): listed, not shown. */
  removed?: boolean;
}

/** A product's `image` as the document draws it: the kept file, or why there is none. */
export interface DocumentProductImage {
  url: string;
  file: { id: string; type: FileType; pixels: PixelSize | null } | null;
  problem: string | null;
}

/** Where the drawn images' bytes go, and the files whose pages follow the document, in order. */
export interface DocumentFiles {
  images: { path: string; file: string }[];
  appended: string[];
}

/** A pixel is drawn as 0.75 pt (96 per inch): never larger, smaller when the page is narrower. */
const pointsPerPixel = 0.75;
/**
 * An image is drawn on one page under its heading and caption: what the page leaves it. 80 points hold
 * the heading and a caption of two lines; a longer caption (a description may have 1,000 characters)
 * takes its lines, counted high, from the image, which would otherwise run past the page's foot. Half a
 * page at least: a caption longer than that flows over pages of its own, and the image follows it.
 */
function imageRoom(caption: string): number {
  // Words wrap whole, so lines end before they are full: a fifth more, and one, for the estimate's misses.
  const captionLines = Math.ceil(wrappedLines(caption, contentWidth, documentGeometry.bodySize) * 1.2) + 1;
  return Math.max(contentHeight / 2, contentHeight - Math.max(80, 40 + captionLines * bodyLine));
}
const thumbnail = { width: 160, height: 120 };

/**
 * The most pixels one document's images may come to. The layout engine decodes every image it draws
 * whole, in memory of its own, so this bounds a render thread's memory whatever the files
 * (docs/api.md, "In the response document"); an image past it is listed but not drawn.
 */
export const maxDrawnPixels = 60_000_000;

/** Names each image once, in the order drawn, and collects what the renderer needs. */
export class ImagePlacer {
  readonly files: DocumentFiles = { images: [], appended: [] };
  readonly #paths = new Map<string, string>();
  #pixels = 0;

  /** The image drawn within `maxWidth` × `maxHeight` points, or why it is not drawn. */
  draw(
    file: { id: string; type: FileType; pixels: PixelSize | null },
    maxWidth: number,
    maxHeight: number,
  ): DrawnImage | { notDrawn: string } {
    if (!file.pixels) return { notDrawn: 'its size cannot be read' };
    let path = this.#paths.get(file.id);
    if (!path) {
      const pixels = file.pixels.width * file.pixels.height;
      if (this.#pixels + pixels > maxDrawnPixels) {
        return {
          notDrawn: `the document's images would come to more than ${maxDrawnPixels.toLocaleString('en-US')} pixels`,
        };
      }
      this.#pixels += pixels;
      path = `/files/${this.files.images.length}.${file.type}`;
      this.#paths.set(file.id, path);
      this.files.images.push({ path, file: file.id });
    }
    const width = file.pixels.width * pointsPerPixel;
    const height = file.pixels.height * pointsPerPixel;
    const scale = Math.min(1, maxWidth / width, maxHeight / height);
    const round = (value: number) => Math.max(1, Math.floor(value * scale * 100) / 100);
    return { path, file: file.id, width: round(width), height: round(height) };
  }
}

export type AttachmentBlock =
  | { kind: 'table'; table: EvidenceTable }
  | { kind: 'image'; title: string; caption: string; image: DrawnImage };

/** The list of attachments (every file, and where it is), then each image under its heading. */
export function attachmentBlocks(files: readonly DocumentFile[], placer: ImagePlacer): AttachmentBlock[] {
  if (files.length === 0) return [];
  const rows: TableRow[] = [];
  const images: AttachmentBlock[] = [];
  let appendedPages = 0;
  for (const file of files) {
    const cells = (where: string) => [
      file.filename,
      humanize(file.category),
      file.description ?? '',
      file.pages === null ? '' : String(file.pages),
      where,
    ];
    if (file.removed) {
      rows.push({ cells: cells('Removed by a personal-data request, not shown'), detail: null });
    } else if (file.slot) {
      rows.push({ cells: cells(`Sent separately as ${file.slot}`), detail: null });
    } else if (file.type === 'pdf') {
      const appended = { first: appendedPages + 1, last: appendedPages + (file.pages ?? 1) };
      appendedPages = appended.last;
      placer.files.appended.push(file.id);
      const where = `Appended after this document (attachment pages ${appended.first} to ${appended.last})`;
      rows.push({ cells: cells(where), detail: null, appended });
    } else {
      const caption = joined([file.description, file.filename], ' · ');
      const image = placer.draw(file, contentWidth, imageRoom(caption));
      if ('notDrawn' in image) {
        rows.push({ cells: cells(`Not shown: ${image.notDrawn}`), detail: null });
        continue;
      }
      rows.push({ cells: cells('Shown in this document'), detail: null });
      images.push({ kind: 'image', title: humanize(file.category), caption, image });
    }
  }
  const table: EvidenceTable = {
    section: 'attachments',
    title: `Attachments (${files.length})`,
    columns: [
      { label: 'File', weight: 2.2 },
      { label: 'Category', weight: 1.6 },
      { label: 'Description', weight: 2.6 },
      { label: 'Pages', weight: 0.6 },
      { label: 'Where', weight: 2.2 },
    ],
    rows,
  };
  return [{ kind: 'table', table }, ...images];
}

/**
 * The products table with each product's kept image as a thumbnail under its row, and a note where its
 * image could not be fetched. A product whose image was never fetched (saved before images were) shows none.
 */
export function withProductImages(
  table: EvidenceTable,
  products: readonly Product[],
  images: readonly DocumentProductImage[],
  placer: ImagePlacer,
): EvidenceTable {
  if (images.length === 0) return table;
  const byUrl = new Map(images.map((image) => [image.url, image]));
  const rows = table.rows.map((row, at) => {
    const url = products[at]?.image;
    const kept = url === undefined ? undefined : byUrl.get(url);
    if (!kept) return row;
    const image = kept.file && placer.draw(kept.file, thumbnail.width, thumbnail.height);
    if (image && !('notDrawn' in image)) return { ...row, image };
    const problem = kept.problem ?? (image ? image.notDrawn : 'its size cannot be read');
    return { ...row, detail: joined([row.detail, `Image not available: ${problem}`], '\n\n') };
  });
  return { ...table, rows };
}
