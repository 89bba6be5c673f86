import { type Inspection, inspectFile, looksLikePdf } from '../domain/file-inspection.js';
import { startThread, threadFile } from './threads.js';

/**
 * Inspects an uploaded or fetched file (domain/file-inspection.ts) without holding up the event loop. An
 * image is judged by its header, at once. A PDF is parsed whole, which a hostile file can make cost
 * seconds and hundreds of megabytes (objects by the hundred thousand, compressed object streams), so it is
 * read on a thread of its own, bounded in time and memory: past either, it is refused. At most a few
 * are read at once; the others wait, one line per tenant (an organisation id), served in turn, so that
 * one organisation's stream of heavy PDFs delays another's upload by about one read, not by its backlog.
 */
export async function inspectApart(
  bytes: Buffer,
  tenant: string,
  bounds: Bounds = pdfBounds,
): Promise<Inspection> {
  if (!looksLikePdf(bytes)) return inspectFile(bytes);
  await turn(tenant);
  try {
    return await inspectOnThread(bytes, bounds);
  } finally {
    reading -= 1;
    next();
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
/** Waiting reads by tenant, in the order tenants are served: a tenant's line is never empty. */
const waiting = new Map<string, (() => void)[]>();

async function turn(tenant: string): Promise<void> {
  if (reading >= concurrency) {
    await new Promise<void>((resolve) => {
      const line = waiting.get(tenant);
      if (line) line.push(resolve);
      else waiting.set(tenant, [resolve]);
    });
  }
  reading += 1;
}

/** The first tenant's oldest read goes; that tenant goes to the back of the line if it has more. */
function next(): void {
  for (const [tenant, line] of waiting) {
    waiting.delete(tenant);
    const start = line.shift();
    if (line.length > 0) waiting.set(tenant, line);
    start?.();
    return;
  }
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
