import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { EvidenceDocument } from '../domain/evidence-document.js';
import { Failure } from '../domain/failure.js';
import type { FileBytes } from './pdf.js';
import type { RenderAnswer, RenderTask } from './pdf-thread.js';
import { startThread, threadFile } from './threads.js';

/**
 * A render thread's young generation, where a document's short-lived objects go: 4 MB, not V8's default.
 * The engine makes garbage fast; with the default each thread held tens of megabytes of it between
 * collections (the documents bench's process peaked at 318–330 MiB; with 4 MB, 261–268 MiB, as fast).
 */
const threadLimits = { maxYoungGenerationSizeMb: 4 };

/**
 * Renders evidence PDFs on worker threads. Laying out a PDF is pure CPU (milliseconds a document,
 * seconds for the largest that Typst lays out): on the event loop, a hundred submissions rendering at
 * once would stall every request and lease renewal of the process behind them. Threads keep the loop
 * free and use every core.
 *
 * One pool per process, its threads started as work arrives, up to RENDER_THREADS (docs/architecture.md,
 * "Render threads"). A thread holds one render at a time; the others wait here, one line per tenant,
 * served in turn, so that one organisation's batch of large documents delays another's submission by
 * about one of its renders, not the whole batch. A render's time limit counts from when a thread takes
 * it: past it, that render fails and its thread is dropped for a fresh one, and nothing else fails with
 * it. Idle threads are unref'd, so an idle pool never keeps a process alive.
 */
export class RenderPool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #threadFile: URL;
  readonly #threads: Thread[] = [];
  /** Waiting renders by tenant, in the order tenants are served: a tenant's line is never empty. */
  readonly #waiting = new Map<string, Task[]>();
  #nextId = 1;

  constructor(options: RenderPoolOptions) {
    this.#size = Math.max(1, options.threads);
    this.#timeoutMs = options.timeoutMs;
    this.#threadFile = options.threadFile ?? pdfThreadFile;
  }

  /**
   * Renders `model` for `tenant` (an organisation id), whose renders take turns with other tenants'.
   * `files` holds the bytes of the files the model shows, by id: those it names are copied when a thread
   * takes the render, and the copies moved to it; a waiting render holds only the caller's own bytes.
   */
  async render(model: EvidenceDocument, tenant: string, files: FileBytes = new Map()): Promise<Buffer> {
    return (await this.#enqueue(model, tenant, files, false)).pdf;
  }

  /** As `render`, with the PDF's pages counted (the appended ones included). */
  async renderCounted(
    model: EvidenceDocument,
    tenant: string,
    files: FileBytes = new Map(),
  ): Promise<{ pdf: Buffer; pages: number }> {
    const { pdf, pages } = await this.#enqueue(model, tenant, files, true);
    return { pdf, pages: pages ?? 0 };
  }

  #enqueue(model: EvidenceDocument, tenant: string, files: FileBytes, countPages: boolean) {
    return new Promise<Rendered>((resolve, reject) => {
      const task: Task = { id: this.#nextId++, model, files, countPages, resolve, reject };
      const line = this.#waiting.get(tenant);
      if (line) line.push(task);
      else this.#waiting.set(tenant, [task]);
      this.#dispatch();
    });
  }

  /** Stops every thread: renders waiting or running fail. */
  async close(): Promise<void> {
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    for (const task of waiting) task.reject(new Error('the render pool was closed'));
    const threads = this.#threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  /** Hands waiting renders to idle threads, starting threads up to the pool's size. */
  #dispatch(): void {
    while (this.#waiting.size > 0) {
      let thread = this.#threads.find((candidate) => !candidate.running);
      if (!thread && this.#threads.length < this.#size) {
        try {
          thread = this.#start();
        } catch (error) {
          // No thread to render on (out of memory, a missing module): the render it was for fails, here
          // and not as an exception of whatever called (a timer, another thread's answer).
          const reason = error instanceof Error ? error.message : String(error);
          this.#next()?.reject(new Error(`a render thread could not start: ${reason}`));
          continue;
        }
      }
      if (!thread) return;
      const task = this.#next();
      if (task) this.#run(thread, task);
    }
  }

  /** The first tenant's oldest render; that tenant goes to the back of the line if it has more. */
  #next(): Task | undefined {
    for (const [tenant, line] of this.#waiting) {
      this.#waiting.delete(tenant);
      const task = line.shift();
      if (line.length > 0) this.#waiting.set(tenant, line);
      return task;
    }
    return undefined;
  }

  #run(thread: Thread, task: Task): void {
    try {
      const files = ownCopies(task.model, task.files);
      const transfer = [...files.values()].map((bytes) => bytes.buffer as ArrayBuffer);
      const { id, model, countPages } = task;
      thread.worker.postMessage({ id, model, files, countPages } satisfies RenderTask, transfer);
    } catch (error) {
      // A model that cannot be sent fails alone; the thread never saw it and stays idle.
      task.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const timer = setTimeout(() => this.#timeOut(thread), this.#timeoutMs);
    thread.running = { task, timer };
    // Only a thread with work in hand holds the process open.
    thread.worker.ref();
  }

  /**
   * A render that never ends (a layout loop) must not hold its submission, or its thread, forever: it
   * fails, and its thread is dropped at once. Termination is not awaited: a renderer that runs
   * synchronously in native code lets the thread stop only when its call returns, and the next render
   * must not wait for that; a fresh thread takes the dropped one's place meanwhile.
   */
  #timeOut(thread: Thread): void {
    const running = thread.running;
    if (!running) return;
    this.#drop(thread);
    thread.worker.unref();
    void thread.worker.terminate();
    running.task.reject(
      new Error(
        `rendering the PDF took longer than ${this.#timeoutMs} ms (RENDER_TIMEOUT_MS); its thread was stopped`,
      ),
    );
    this.#dispatch();
  }

  /** A thread that died fails the render it held, and only that one. */
  #lost(thread: Thread, error: Error): void {
    const running = thread.running;
    this.#drop(thread);
    if (running) running.task.reject(error);
    this.#dispatch();
  }

  #drop(thread: Thread): void {
    const index = this.#threads.indexOf(thread);
    if (index >= 0) this.#threads.splice(index, 1);
    if (thread.running) clearTimeout(thread.running.timer);
    thread.running = undefined;
  }

  #start(): Thread {
    const worker = startThread(this.#threadFile, threadLimits);
    const thread: Thread = { worker, running: undefined };
    worker.on('message', (answer: RenderAnswer) => {
      const running = thread.running;
      // An answer after its render timed out belongs to no one: the thread is dropped already.
      if (running?.task.id !== answer.id) return;
      clearTimeout(running.timer);
      thread.running = undefined;
      if ('pdf' in answer)
        running.task.resolve({
          pdf: Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.length),
          pages: answer.pages,
        });
      else running.task.reject(renderFailure(answer.error));
      this.#dispatch();
      if (!thread.running) worker.unref();
    });
    worker.on('error', (error) =>
      this.#lost(thread, new Error(`the render thread failed: ${error.message}`, { cause: error })),
    );
    worker.on('exit', (code) => this.#lost(thread, new Error(`the render thread exited (code ${code})`)));
    worker.unref();
    this.#threads.push(thread);
    return thread;
  }
}

export interface RenderPoolOptions {
  /** At most this many threads (RENDER_THREADS). */
  threads: number;
  /** How long one render may hold its thread (RENDER_TIMEOUT_MS). */
  timeoutMs: number;
  /** The threads' module: the PDF renderer's (pdf-thread.ts) unless a test puts in a thread of its own. */
  threadFile?: URL;
}

/**
 * The bytes the model names, each in a buffer of its own: a Buffer may be a view into a larger one (a
 * pool, a database row's), which must be neither sent whole nor moved away from its owner.
 */
function ownCopies(model: EvidenceDocument, files: FileBytes): Map<string, Uint8Array> {
  const named = [...model.files.images.map(({ file }) => file), ...model.files.appended];
  const copies = new Map<string, Uint8Array>();
  for (const file of named) {
    const bytes = files.get(file);
    if (bytes && !copies.has(file)) copies.set(file, new Uint8Array(bytes));
  }
  return copies;
}

interface Task {
  id: number;
  model: EvidenceDocument;
  files: FileBytes;
  countPages: boolean;
  resolve(rendered: Rendered): void;
  reject(error: Error): void;
}

interface Rendered {
  pdf: Buffer;
  pages: number | null;
}

interface Thread {
  worker: Worker;
  running: { task: Task; timer: NodeJS.Timeout } | undefined;
}

const pdfThreadFile = threadFile('pdf-thread');

let shared: RenderPool | undefined;

/**
 * A thread a core, at most four: the first thread adds about 120 MB once it has rendered (Typst's cache
 * included), each other about 55 MB; past a few, more threads add memory, not speed, and
 * `availableParallelism` counts the host's cores, not a container's share.
 */
export const defaultRenderThreads = () => Math.min(4, availableParallelism());
let threads = defaultRenderThreads();
/** Far beyond an ordinary document's layout (tens of milliseconds; seconds for hundreds of pages). */
let timeoutMs = 30_000;

/** Sets the process's pool (RENDER_THREADS, RENDER_TIMEOUT_MS), before its first render. */
export function configureRenderThreads(count: number | undefined, renderTimeoutMs: number): void {
  if (count !== undefined) threads = count;
  timeoutMs = renderTimeoutMs;
}

/** The process's pool: a thread a core, at most four, unless configured. */
export function renderPool(): RenderPool {
  shared ??= new RenderPool({ threads, timeoutMs });
  return shared;
}

/**
 * An evidence image the layout engine cannot decode, though its header read well (a corrupt scan): the
 * same bytes fail every time, so rendering again cannot help, and the file is what must change.
 */
export class UndrawableImageError extends Failure {
  override readonly name = 'UndrawableImageError';
  readonly permanent = true;

  /** What the decoder said. */
  constructor(readonly reason: string) {
    super(`Not sent: an evidence image cannot be decoded (${reason}); replace the file.`);
  }
}

function renderFailure(reason: string): Error {
  const decoding = /failed to decode image \(([^)]*)\)/.exec(reason);
  return decoding?.[1]
    ? new UndrawableImageError(decoding[1])
    : new Error(`rendering the PDF failed: ${reason}`);
}
