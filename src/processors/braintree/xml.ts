import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Braintree's XML, read and written the way its server SDKs do (braintree_ruby `Xml::Generator` and
 * `Xml::Parser`): element names keep their dashes (`amount-disputed`); `type="array"` holds a list of
 * children whatever their name; `type="integer"` and `type="boolean"` are typed values; `nil="true"` is
 * null; anything else is text, or a record of its children. Repeated children of a record become a list.
 */

export type XmlValue = string | number | boolean | null | XmlValue[] | { [key: string]: XmlValue };

/** What we send: text, integers, records, and lists (sent as `type="array"` of `<item>`). */
export type XmlInput = string | number | XmlInput[] | { [key: string]: XmlInput };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  htmlEntities: true,
  trimValues: true,
  // Every element as a list, so that one child and many read alike; `readElement` picks singles back out.
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: false,
  suppressBooleanAttributes: false,
});

type Element = Record<string, unknown>;

/** Reads a Braintree XML document: its root element's name and value. Throws on anything else. */
export function readXml(text: string): { root: string; value: XmlValue } {
  // Braintree never sends a DOCTYPE; one would only bring entity expansion we do not want.
  if (/<!DOCTYPE/i.test(text) || XMLValidator.validate(text) !== true) {
    throw new Error('not well-formed XML');
  }
  const document = parser.parse(text) as Record<string, unknown[]>;
  const roots = Object.entries(document).filter(([name]) => !name.startsWith('?'));
  const [root] = roots;
  if (roots.length !== 1 || !root) throw new Error('not one root element');
  const [name, [element]] = root;
  return { root: name, value: readElement(element) };
}

/** Reads a document whose root must be `root`, answering its value (for `HttpAnswer` schemas). */
export function readRoot(root: string): (text: string) => XmlValue {
  return (text) => {
    const read = readXml(text);
    if (read.root !== root) throw new Error(`root is <${read.root}>, not <${root}>`);
    return read.value;
  };
}

function readElement(node: unknown): XmlValue {
  if (typeof node === 'string') return node;
  const element = (node ?? {}) as Element;
  if (element['@_nil'] === 'true') return null;
  const text = typeof element['#text'] === 'string' ? element['#text'] : '';
  const children = Object.entries(element).filter(
    (entry): entry is [string, unknown[]] => !entry[0].startsWith('@_') && entry[0] !== '#text',
  );
  switch (element['@_type']) {
    case 'integer':
      if (!/^-?\d+$/.test(text)) throw new Error(`"${text}" is not an integer`);
      return Number(text);
    case 'boolean':
      return text === 'true';
    case 'array':
      return children.flatMap(([, items]) => items.map(readElement));
  }
  if (children.length === 0) return text;
  const record: Record<string, XmlValue> = {};
  for (const [key, items] of children) {
    record[key] = items.length === 1 ? readElement(items[0]) : items.map(readElement);
  }
  return record;
}

/** Writes `value` as the document `<root>…</root>`, with the XML declaration Braintree's SDKs send. */
export function writeXml(root: string, value: XmlInput): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    [root]: elementOf(value),
  }) as string;
}

function elementOf(value: XmlInput): unknown {
  if (typeof value === 'string') return xmlText(value);
  if (typeof value === 'number') return { '#text': String(value), '@_type': 'integer' };
  if (Array.isArray(value)) return { '@_type': 'array', item: value.map(elementOf) };
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, elementOf(inner)]));
}

/** XML 1.0 cannot carry most control characters at all, escaped or not: they are left out. */
function xmlText(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids.
  return value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}
