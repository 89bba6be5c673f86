import { afterAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/documents/pdf.js';
import { RenderPool } from '../../src/documents/render-pool.js';
import { buildEvidenceDocument, type EvidenceDocument } from '../../src/domain/evidence-document.js';
import type { FixtureBehaviour } from '../fixtures/render-thread.js';
import { fullSubmission } from '../helpers/evidence-documents.js';

const pools: RenderPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

function pool(threads: number, timeoutMs = 30_000, threadFile?: URL): RenderPool {
  const created = new RenderPool({ threads, timeoutMs, ...(threadFile && { threadFile }) });
  pools.push(created);
  return created;
}

/** A pool of threads that do what each model says (test/fixtures/render-thread.ts). */
const fixturePool = (threads: number, timeoutMs = 30_000) =>
  pool(threads, timeoutMs, new URL('../fixtures/render-thread.ts', import.meta.url));

const noFiles = { images: [], appended: [] };
const model = (behaviour: FixtureBehaviour) =>
  ({ title: JSON.stringify(behaviour), files: noFiles }) as unknown as EvidenceDocument;

/** Renders the fixture's `label` documents, noting the order they finish in. */
function renderAll(
  renders: RenderPool,
  tasks: [tenant: string, behaviour: FixtureBehaviour][],
  finished: string[] = [],
) {
  return Promise.allSettled(
    tasks.map(([tenant, behaviour]) =>
      renders.render(model(behaviour), tenant).then((pdf) => {
        finished.push(behaviour.label);
        return pdf.toString();
      }),
    ),
  );
}

/** Starts every thread of the pool, so that no render's time limit includes a thread's start-up. */
async function warm(renders: RenderPool, threads: number) {
  const tasks = Array.from({ length: threads }, (_, i): [string, FixtureBehaviour] => [
    'warm',
    { label: `warm${i}`, sleepMs: 100 },
  ]);
  await renderAll(renders, tasks);
}

describe('RenderPool with the PDF renderer', () => {
  const renders = pool(2);

  it('renders on its threads the same bytes as rendering in the process', async () => {
    const document = buildEvidenceDocument(fullSubmission(3));
    const [threaded, local] = await Promise.all([renders.render(document, 'org_a'), renderPdf(document)]);
    expect(threaded.equals(local)).toBe(true);
  });

  it('answers each of many concurrent renders with its own document', async () => {
    const documents = [1, 2, 3, 4, 5, 6].map((count) => buildEvidenceDocument(fullSubmission(count)));
    const rendered = await Promise.all(
      documents.map((document, index) => renders.render(document, `org_${index % 2}`)),
    );
    const expected = await Promise.all(documents.map((document) => renderPdf(document)));
    rendered.forEach((pdf, index) => {
      expect(pdf.equals(expected[index] ?? Buffer.alloc(0))).toBe(true);
    });
  });

  it('fails only the render that failed, and goes on rendering', async () => {
    const broken = { blocks: 'not a list', files: noFiles } as unknown as EvidenceDocument;
    await expect(renders.render(broken, 'org_a')).rejects.toThrow('rendering the PDF failed');
    const pdf = await renders.render(buildEvidenceDocument(fullSubmission(1)), 'org_a');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('RenderPool: fairness between tenants', () => {
  it('serves the tenants with renders waiting in turn, each tenant in the order it asked', async () => {
    const renders = fixturePool(1);
    const finished: string[] = [];
    // a1 takes the only thread at once; the rest wait, A first in line, then B, then C.
    await renderAll(
      renders,
      [
        ['A', { label: 'a1' }],
        ['A', { label: 'a2' }],
        ['A', { label: 'a3' }],
        ['A', { label: 'a4' }],
        ['A', { label: 'a5' }],
        ['B', { label: 'b1' }],
        ['C', { label: 'c1' }],
        ['C', { label: 'c2' }],
      ],
      finished,
    );
    expect(finished).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'c2', 'a4', 'a5']);
  });

  it("puts one tenant's render after at most one more of a tenant with fifty waiting", async () => {
    const renders = fixturePool(1);
    const finished: string[] = [];
    const batch = Array.from({ length: 50 }, (_, i): [string, FixtureBehaviour] => [
      'A',
      { label: `a${i + 1}` },
    ]);
    await renderAll(renders, [...batch, ['B', { label: 'b1' }]], finished);
    expect(finished.slice(0, 4)).toEqual(['a1', 'a2', 'b1', 'a3']);
    expect(finished).toHaveLength(51);
  });
});

describe('RenderPool: time limit and crashes', () => {
  it('fails a render past its time limit alone; renders waiting and on other threads succeed', async () => {
    const renders = fixturePool(2, 3000);
    await warm(renders, 2);
    const outcomes = await renderAll(renders, [
      // Holds its thread far beyond the limit, synchronously, as a native renderer would.
      ['A', { label: 'hung', sleepMs: 60_000 }],
      ['B', { label: 'b1', sleepMs: 2000 }],
      // These wait for a thread: the first ones get the other thread, the last the fresh one that takes
      // the hung thread's place.
      ['A', { label: 'a2', sleepMs: 800 }],
      ['B', { label: 'b2', sleepMs: 800 }],
      ['C', { label: 'c1', sleepMs: 800 }],
      ['C', { label: 'c2', sleepMs: 800 }],
    ]);
    expect(outcomes[0]).toEqual({
      status: 'rejected',
      reason: new Error(
        'rendering the PDF took longer than 3000 ms (RENDER_TIMEOUT_MS); its thread was stopped',
      ),
    });
    expect(outcomes.slice(1)).toEqual(
      ['b1', 'a2', 'b2', 'c1', 'c2'].map((label) => ({ status: 'fulfilled', value: label })),
    );
    // The pool goes on rendering at full size.
    expect(await renderAll(renders, [['A', { label: 'after' }]])).toEqual([
      { status: 'fulfilled', value: 'after' },
    ]);
  });

  it('counts the time limit from when a thread takes the render, not from when it was asked', async () => {
    const renders = fixturePool(1, 2000);
    await warm(renders, 1);
    // The last render waits about 2.4 s for the thread, longer than the limit, then renders at once.
    const outcomes = await renderAll(renders, [
      ['A', { label: 'first', sleepMs: 1200 }],
      ['B', { label: 'second', sleepMs: 1200 }],
      ['C', { label: 'quick' }],
    ]);
    expect(outcomes).toEqual(
      ['first', 'second', 'quick'].map((label) => ({ status: 'fulfilled', value: label })),
    );
  });

  it('fails only the render whose thread crashed, and the render that failed, and goes on', async () => {
    const renders = fixturePool(2);
    const outcomes = await renderAll(renders, [
      ['A', { label: 'exits', crash: 'exit' }],
      ['B', { label: 'throws', crash: 'throw' }],
      ['A', { label: 'a2', sleepMs: 50 }],
      ['B', { label: 'fails', crash: 'fail' }],
      ['B', { label: 'b3', sleepMs: 50 }],
      ['C', { label: 'c1', sleepMs: 50 }],
    ]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: new Error('the render thread exited (code 3)') },
      { status: 'rejected', reason: new Error('the render thread failed: render throws broke its thread') },
      { status: 'fulfilled', value: 'a2' },
      { status: 'rejected', reason: new Error('rendering the PDF failed: render fails failed') },
      { status: 'fulfilled', value: 'b3' },
      { status: 'fulfilled', value: 'c1' },
    ]);
  });

  it('fails the renders still waiting when it closes', async () => {
    const renders = fixturePool(1);
    const outcomes = renderAll(renders, [
      ['A', { label: 'running', sleepMs: 200 }],
      ['B', { label: 'waiting' }],
    ]);
    await renders.close();
    expect((await outcomes)[1]).toEqual({
      status: 'rejected',
      reason: new Error('the render pool was closed'),
    });
  });

  it('fails the renders it cannot start a thread for, and throws nowhere else', async () => {
    // The Worker constructor refuses a module that is not a file at once.
    const renders = pool(1, 30_000, new URL('https://example.com/render-thread.js'));
    const results = await Promise.allSettled([
      renders.render(model({ label: 'a' }), 'org_a'),
      renders.render(model({ label: 'b' }), 'org_b'),
    ]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toBe(
        'Error: a render thread could not start: The URL must be of scheme file',
      );
    }
  });
});
