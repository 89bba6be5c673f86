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
const placeholder = /\{\{([^{}]*)\}\}/g;

/**
 * Fills `{{key}}` (spaces inside the braces allowed) from `values`; an unknown or empty key becomes empty
 * text, never the raw placeholder. A line holding only `{{products}}`, `{{correspondence}}` or
 * `{{past_payments}}` places that section there (its first such line only). Blank lines separate
 * paragraphs; a paragraph keeps its single line breaks. Values are inserted once, never re-read as
 * template text.
 */
export function renderTemplateBody(body: string, values: Readonly<Record<string, string>>): BodyPart[] {
  const parts: BodyPart[] = [];
  const placed = new Set<SectionKey>();
  let lines: string[] = [];
  const flush = () => {
    const filled = lines.join('\n').replace(placeholder, (_, key: string) => {
      return own(values, key.trim()) ?? '';
    });
    for (const paragraph of filled.split(/\n[ \t]*\n/)) {
      const text = paragraph.replace(/[ \t]+$/gm, '').replace(/^\n+|\n+$/g, '');
      if (text.trim() !== '') parts.push({ kind: 'paragraph', text });
    }
    lines = [];
  };
  for (const line of body.replace(/\r\n?/g, '\n').split('\n')) {
    const section = sectionLine.exec(line)?.[1] as SectionKey | undefined;
    if (section && !placed.has(section)) {
      flush();
      placed.add(section);
      parts.push({ kind: 'section', section });
    } else if (!section) {
      lines.push(line);
    }
  }
  flush();
  return parts;
}

/** The body as one text: its paragraphs; the item sections travel as items of their own, not as text. */
export function bodyText(parts: BodyPart[]): string {
  return parts.flatMap((part) => (part.kind === 'paragraph' ? [part.text] : [])).join('\n\n');
}
