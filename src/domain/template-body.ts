import { own } from './evidence.js';

/**
 * A template's body: its text with `{{key}}` placeholders, filled and cut into paragraphs and the places
 * of the item sections (`renderTemplateBody`). The values come from `placeholderValues`
 * (domain/evidence-format.ts).
 */

export const sectionKeys = ['products', 'correspondence', 'past_payments'] as const;
export type SectionKey = (typeof sectionKeys)[number];

/** The template body in reading order: paragraphs of filled text, and the places of the item sections. */
export type BodyPart = { kind: 'paragraph'; text: string } | { kind: 'section'; section: SectionKey };

const sectionLine = /^\s*\{\{\s*(products|correspondence|past_payments)\s*\}\}\s*$/;

/**
 * Fills `{{key}}` (spaces inside the braces allowed) from `values`; an unknown or empty key becomes empty
 * text, never the raw placeholder. A line holding only `{{products}}`, `{{correspondence}}` or
 * `{{past_payments}}` places that section there (its first such line only). Blank lines separate
 * paragraphs; a paragraph keeps its single line breaks. Values are inserted once, never re-read as
 * template text.
 */
export function renderTemplateBody(body: string, values: Readonly<Record<string, string>>): BodyPart[] {
  const parts: BodyPart[] = [];
  let lines: string[] = [];
  const flush = () => {
    const source = lines.join('\n');
    let filled = '';
    let copied = 0;
    scanPlaceholders(source, (key, start, end) => {
      filled += source.slice(copied, start) + (own(values, key) ?? '');
      copied = end;
    });
    filled += source.slice(copied);
    for (const paragraph of filled.split(/\n[ \t]*\n/)) {
      const text = paragraph
        .split('\n')
        .map(withoutTrailingBlanks)
        .join('\n')
        .replace(/^\n+|\n+$/g, '');
      if (text.trim() !== '') parts.push({ kind: 'paragraph', text });
    }
    lines = [];
  };
  for (const line of bodyLines(body)) {
    if (line.kind === 'section') {
      flush();
      parts.push(line);
    } else {
      lines.push(line.text);
    }
  }
  flush();
  return parts;
}

export type BodyLine = { kind: 'text'; text: string } | { kind: 'section'; section: SectionKey };

/**
 * The body's lines as `renderTemplateBody` reads them: a section's first line places it; a repeated
 * section line is dropped. Shared with the size measure (domain/document-size.ts), which must read the
 * body exactly as it is rendered.
 */
export function bodyLines(body: string): BodyLine[] {
  const placed = new Set<SectionKey>();
  return body
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .flatMap((text): BodyLine[] => {
      const section = sectionLine.exec(text)?.[1] as SectionKey | undefined;
      if (!section) return [{ kind: 'text', text }];
      if (placed.has(section)) return [];
      placed.add(section);
      return [{ kind: 'section', section }];
    });
}

/**
 * Visits each `{{key}}` of `text` in order (the key trimmed, as it is looked up; no braces inside), with
 * where the placeholder starts and ends. A scan rather than a regular expression's matches: the size
 * measure (domain/document-size.ts) counts a body of 20,000 placeholders without an object for each.
 */
export function scanPlaceholders(
  text: string,
  visit: (key: string, start: number, end: number) => void,
): void {
  let from = 0;
  for (;;) {
    const open = text.indexOf('{{', from);
    if (open === -1) return;
    let at = open + 2;
    while (at < text.length && text[at] !== '{' && text[at] !== '}') at += 1;
    if (text.startsWith('}}', at)) {
      visit(text.slice(open + 2, at).trim(), open, at + 2);
      from = at + 2;
    } else {
      // Not closed before another brace: a placeholder may still start at the next brace.
      from = open + 1;
    }
  }
}

/** The body as one text: its paragraphs; the item sections travel as items of their own, not as text. */
export function bodyText(parts: BodyPart[]): string {
  return parts.flatMap((part) => (part.kind === 'paragraph' ? [part.text] : [])).join('\n\n');
}

/**
 * The line without the spaces and tabs that end it. A loop, not `/[ \t]+$/gm`: that expression tries
 * every space of a long run that does not end its line, which took 12 s for a line of 60,000 spaces.
 */
function withoutTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end -= 1;
  return line.slice(0, end);
}
