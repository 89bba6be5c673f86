import { type Inspection, inspectFile, looksLikePdf } from '../domain/file-inspection.js';
import { startThread, threadFile } from './threads.js';

/**
 * Inspects an uploaded or fetched file (domain/file-inspection.ts) without holding up the event loop. An
 * image is judged by its header, at once. A PDF is parsed whole, which a hostile file can make cost
 * seconds and hundreds of megabytes (objects by the hundred thousand, compressed object streams), so it is
 * read on a thread of its own, bounded in time and memory: past either, it is refused. At most a few
 * are read at once; the others wait their turn.
 */
export async function inspectApart(bytes: Buffer, bounds: Bounds = pdfBounds): Promise<Inspection> {
  if (!looksLikePdf(bytes)) return inspectFile(bytes);
  await turn();
  try {
    return await inspectOnThread(bytes, bounds);
  } finally {
    reading -= 1;
    waiting.shift()?.();
  }
}

/** How long and how much memory reading one PDF may take. */
interface Bounds {
  ms: number;
  heapMb: number;
}
const pdfBounds: Bounds = { ms: 10_000, heapMb: 256 };
const concurrency = 2;
let reading = 0;
const waiting: (() => void)[] = [];

async function turn(): Promise<void> {
  if (reading >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
  reading += 1;
}

function inspectOnThread(bytes: Buffer, limits: Bounds): Promise<Inspection> {
  return new Promise((resolve) => {
    const thread = startThread(threadFile('inspection-thread'), { maxOldGenerationSizeMb: limits.heapMb });
    const done = (inspection: Inspection) => {
      clearTimeout(timer);
      resolve(inspection);
      void thread.terminate();
    };
    const timer = setTimeout(
      () => done({ problem: `the PDF takes more than ${limits.ms / 1000} s to read` }),
      limits.ms,
    );
    thread.once('message', (inspection: Inspection) => done(inspection));
    // Out of memory, or a thread that could not start: the file is what cannot be read.
    thread.once('error', () => done({ problem: 'the PDF cannot be read' }));
    thread.once('exit', () => done({ problem: 'the PDF cannot be read' }));
    thread.postMessage(new Uint8Array(bytes));
  });
}
