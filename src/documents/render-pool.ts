import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { EvidenceDocument } from '../domain/evidence-document.js';
import type { RenderAnswer, RenderTask } from './pdf-thread.js';

/**
 * Renders evidence PDFs on worker threads. Laying out a PDF is pure CPU (tens of milliseconds a
 * document): on the event loop, fifty submissions rendering at once would stall every request and lease
 * renewal of the process behind them. Threads keep the loop free and use every core.
 *
 * One pool per process, its threads started as work arrives, up to RENDER_THREADS. The threads are
 * unref'd, so an idle pool never keeps a process alive, and a thread that dies (or is stopped after
 * `renderTimeoutMs` on one document) fails only the renders it held; the next render starts a new one.
 */
export class RenderPool {
  readonly #size: number;
  readonly #threads: Thread[] = [];
  #nextId = 1;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  render(model: EvidenceDocument): Promise<Buffer> {
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // Sent first: a model that cannot be sent throws here, leaving nothing behind.
      thread.worker.postMessage({ id, model } satisfies RenderTask);
      // A render that never ends (a layout loop) must not hold its submission forever: the thread is
      // stopped, which fails what it held, and those are retried like any failed render.
      const timer = setTimeout(() => {
        void thread.worker.terminate();
      }, renderTimeoutMs);
      thread.pending.set(id, {
        resolve: (pdf) => {
          clearTimeout(timer);
          resolve(pdf);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      thread.worker.ref();
    });
  }

  async close(): Promise<void> {
    const threads = this.#threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  #leastBusy(): Thread {
    if (this.#threads.length < this.#size) {
      const idle = this.#threads.find((thread) => thread.pending.size === 0);
      return idle ?? this.#start();
    }
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): Thread {
    const worker = startThread();
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', (answer: RenderAnswer) => {
      const waiting = thread.pending.get(answer.id);
      thread.pending.delete(answer.id);
      // Only a thread with work in hand holds the process open.
      if (thread.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ('pdf' in answer)
        waiting.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.length));
      else waiting.reject(new Error(`rendering the PDF failed: ${answer.error}`));
    });
    const fail = (error: Error) => {
      const index = this.#threads.indexOf(thread);
      if (index >= 0) this.#threads.splice(index, 1);
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the render thread exited (code ${code})`)));
    worker.unref();
    this.#threads.push(thread);
    return thread;
  }
}

/** Far beyond any document's layout (tens of milliseconds; a second for hundreds of pages). */
const renderTimeoutMs = 60_000;

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve(pdf: Buffer): void; reject(error: Error): void }>;
}

// Compiled, the thread is the .js file beside this one. Run from source (tsx, vitest) it is the .ts file,
// which a thread can load only once tsx's loader is registered in it (execArgv's --import is not applied
// to threads on Node 20), so the thread starts with a line that registers it first.
const fromSource = import.meta.url.endsWith('.ts');
const threadFile = new URL(`./pdf-thread.${fromSource ? 'ts' : 'js'}`, import.meta.url);

function startThread(): Worker {
  if (!fromSource) return new Worker(threadFile);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(threadFile.href)}); })`;
  return new Worker(boot, { eval: true });
}

let shared: RenderPool | undefined;

/**
 * A thread a core, at most four: a thread holds 20-40 MB once it has rendered; past a few, more threads
 * add memory, not speed, and `availableParallelism` counts the host's cores, not a container's share.
 */
export const defaultRenderThreads = () => Math.min(4, availableParallelism());
let threads = defaultRenderThreads();

/** Sets the size of the process's pool (RENDER_THREADS), before its first render. */
export function configureRenderThreads(count: number | undefined): void {
  if (count !== undefined) threads = count;
}

/** The process's pool: a thread a core, at most four, unless configured. */
export function renderPool(): RenderPool {
  shared ??= new RenderPool(threads);
  return shared;
}
