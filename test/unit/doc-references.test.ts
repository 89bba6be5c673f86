import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The documents in docs/ are the source of truth (docs/contributing.md, "Conventions"): code and documents
 * cite them as `docs/<file>.md, "<heading>"` (or link `docs/<file>.md#<anchor>`), and every citation must
 * lead somewhere. The planning files outside the repository are not cited at all.
 */
const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((path) => /\.(ts|md|sql|json)$/.test(path) && !path.startsWith('node_modules/'))
  .filter((path) => path !== 'package-lock.json' && existsSync(path));

/** A file's text with comment continuations folded, so a citation broken over two lines reads whole. */
const textOf = (path: string) => readFileSync(path, 'utf8').replace(/\n\s*(?:\*(?!\/)|\/\/)\s*/g, ' ');

const headingsOf = (document: string): Set<string> =>
  new Set(
    readFileSync(document, 'utf8')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#{1,6} /, '').trim()),
  );

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

interface Citation {
  from: string;
  document: string;
  sections: string[];
  anchor?: string;
}

function citationsIn(path: string): Citation[] {
  const text = textOf(path);
  const found: Citation[] = [];
  const cited = /docs\/([\w-]+\.md)((?:,? "[^"\n]+"| and "[^"\n]+"| to "[^"\n]+")*)/g;
  for (const match of text.matchAll(cited)) {
    const sections = [...(match[2] ?? '').matchAll(/"([^"\n]+)"/g)].map((quoted) => quoted[1] as string);
    found.push({ from: path, document: `docs/${match[1]}`, sections });
  }
  for (const match of text.matchAll(/\]\((?:\.\.\/)?(?:docs\/)?([\w-]+\.md)#([\w-]+)\)/g)) {
    const document =
      path.startsWith('docs/') || match[0].includes('docs/') ? `docs/${match[1]}` : `${match[1]}`;
    found.push({ from: path, document, sections: [], anchor: match[2] as string });
  }
  return found;
}

const citations = tracked.flatMap(citationsIn);

describe('the README', () => {
  it('is the front door: at most 200 lines, with a map of docs/', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    for (const document of ['api', 'operations', 'architecture', 'contributing']) {
      expect(readme).toContain(`[docs/${document}.md](docs/${document}.md)`);
    }
  });
});

describe('references to the documents', () => {
  it('are many: the code cites the documents', () => {
    expect(citations.length).toBeGreaterThan(100);
  });

  it('each name a document that exists, and a section it has', () => {
    const broken = citations.flatMap((citation) => {
      if (!existsSync(citation.document)) return [`${citation.from}: ${citation.document} does not exist`];
      const headings = headingsOf(citation.document);
      const missing = citation.sections.filter((section) => !headings.has(section));
      if (citation.anchor && ![...headings].some((heading) => anchorOf(heading) === citation.anchor)) {
        missing.push(`#${citation.anchor}`);
      }
      return missing.map((section) => `${citation.from}: ${citation.document} has no section "${section}"`);
    });
    expect(broken).toEqual([]);
  });

  it('never name the planning files outside the repository', () => {
    const outside = /(?<![\w/])(?:API|ARCHITECTURE|PROCESSORS|STYLE)\.md|\.\.\/shared\//;
    const naming = tracked.filter(
      (path) => path !== 'test/unit/doc-references.test.ts' && outside.test(readFileSync(path, 'utf8')),
    );
    expect(naming).toEqual([]);
  });
});
