import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { ensureDebianPackage } from './services.js';

/**
 * Reading PDFs with poppler's command-line tools (Debian's poppler-utils): a second reader besides
 * pdf.js, stricter about the file's structure and its fonts, whose complaints go to stderr.
 */

export const ensurePoppler = () => ensureDebianPackage('poppler-utils', '/usr/bin/pdfinfo');

/** Runs a poppler tool on `pdf`: its stdout and stderr. */
export function poppler(tool: string, pdf: Buffer, ...args: string[]): { stdout: string; stderr: string } {
  const folder = mkdtempSync(join(tmpdir(), 'poppler-'));
  try {
    const file = join(folder, 'in.pdf');
    writeFileSync(file, pdf);
    const run = spawnSync(`/usr/bin/${tool}`, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], {
      encoding: 'utf8',
    });
    if (run.error) throw run.error;
    return { stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Page `page` rendered by pdftoppm at 72 dpi (a point a pixel): its RGBA pixels and width. */
export async function renderedPage(
  pdf: Buffer,
  page = 1,
): Promise<{ width: number; height: number; stderr: string; pixel(x: number, y: number): number[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'pdftoppm-'));
  try {
    const file = join(folder, 'in.pdf');
    writeFileSync(file, pdf);
    const run = spawnSync(
      '/usr/bin/pdftoppm',
      ['-r', '72', '-png', '-f', String(page), '-l', String(page), '-singlefile', file, join(folder, 'out')],
      { encoding: 'utf8' },
    );
    if (run.error) throw run.error;
    const image = await loadImage(readFileSync(join(folder, 'out.png')));
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    return {
      width: image.width,
      height: image.height,
      stderr: run.stderr,
      pixel: (x, y) => [...data.subarray(4 * (y * image.width + x), 4 * (y * image.width + x) + 4)],
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
