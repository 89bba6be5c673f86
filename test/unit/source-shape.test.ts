import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Files under 400 lines, each about one thing (docs/contributing.md, "Conventions"). */
const longest = 400;

describe('the source', () => {
  it(`has no file over ${longest} lines`, () => {
    const sources = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'src', 'workers'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((path) => path.endsWith('.ts') && existsSync(path));
    expect(sources.length).toBeGreaterThan(100);
    const long = sources
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > longest);
    expect(long).toEqual([]);
  });
});
