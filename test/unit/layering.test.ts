import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ import one way (docs/architecture.md, "Layout and layering"): biome.json forbids the
 * known wrong directions, and this finds any cycle between the parts of src/ (each top-level folder one
 * part, each top-level file its own), type-only imports included.
 */

const root = resolve('src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The part of src/ a file is in: its top-level folder, or the file itself. */
function partOf(file: string): string {
  const [first = '', ...rest] = relative(root, file).split('/');
  return rest.length > 0 ? `${first}/` : first;
}

const importPattern = /(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = partOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const target = resolve(dirname(file), match[1] ?? match[2] ?? '');
      if (relative(root, target).startsWith('..')) continue;
      const to = partOf(target.replace(/\.js$/, '.ts'));
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The first cycle a depth-first walk meets, as the parts along it (the first repeated at the end). */
function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return undefined;
    path.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the layers of src/', () => {
  it('import one another without a cycle', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(10);
    expect(findCycle(graph)?.join(' -> ')).toBeUndefined();
  });
});
