/**
 * The PDF file's skeleton for the engine's writer (documents/engine/pdf-writer.ts): numbered objects
 * written in order, their byte offsets kept for the cross-reference table, and the trailer. Nothing here
 * reads a clock or a random source: the same objects give the same bytes.
 */
export class PdfObjects {
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private readonly offsets: number[] = [];
  private next = 1;

  constructor() {
    // The binary comment tells transfer tools the file is not text.
    this.push(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
  }

  /** A number for an object written later (pages name their parent before it is written). */
  allocate(): number {
    return this.next++;
  }

  /** Writes object `number` as `body` (a dictionary or array in PDF syntax). */
  object(number: number, body: string): void {
    this.offsets[number] = this.length;
    this.push(Buffer.from(`${number} 0 obj\n${body}\nendobj\n`, 'latin1'));
  }

  /** Writes object `number` as a stream of `data`; `entries` are the dictionary's other keys. */
  stream(number: number, entries: string, data: Uint8Array): void {
    this.offsets[number] = this.length;
    this.push(Buffer.from(`${number} 0 obj\n<<${entries} /Length ${data.length}>>\nstream\n`, 'latin1'));
    this.push(data);
    this.push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  }

  /** The whole file: the objects, their cross-reference table and the trailer. */
  finish(root: number, info: number): Buffer {
    const count = this.next;
    const table = Buffer.alloc(20 * count);
    table.write('0000000000 65535 f\r\n', 0, 'latin1');
    for (let number = 1; number < count; number++) {
      const offset = this.offsets[number];
      if (offset === undefined) throw new Error(`PDF object ${number} was allocated but never written`);
      table.write(`${String(offset).padStart(10, '0')} 00000 n\r\n`, 20 * number, 'latin1');
    }
    const xref = this.length;
    this.push(Buffer.from(`xref\n0 ${count}\n`, 'latin1'));
    this.push(table);
    this.push(
      Buffer.from(
        `trailer\n<</Size ${count} /Root ${root} 0 R /Info ${info} 0 R>>\nstartxref\n${xref}\n%%EOF\n`,
        'latin1',
      ),
    );
    return Buffer.concat(this.chunks, this.length);
  }

  private push(chunk: Uint8Array): void {
    this.chunks.push(chunk as Buffer);
    this.length += chunk.length;
  }
}

/**
 * A number in PDF syntax: at most three decimals, never an exponent or a negative zero. Formatted from
 * integers (thousandths), which is several times faster than a float's shortest form; this is called
 * a few thousand times a document.
 */
export function num(value: number): string {
  const thousandths = Math.round(value * 1000);
  if (thousandths === 0) return '0';
  // A layout's bug, never to be written into a file (NaN would make the page unreadable).
  if (!Number.isFinite(thousandths)) throw new Error(`a coordinate or size of ${value} in a drawing`);
  const size = thousandths < 0 ? -thousandths : thousandths;
  const whole = Math.floor(size / 1000);
  const fraction = size - whole * 1000;
  const sign = thousandths < 0 ? '-' : '';
  if (fraction === 0) return `${sign}${whole}`;
  if (fraction % 100 === 0) return `${sign}${whole}.${fraction / 100}`;
  if (fraction % 10 === 0) return `${sign}${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
  return `${sign}${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/**
 * A text string (the title, the author): a literal when it is printable ASCII, else UTF-16BE with its
 * byte order mark, as hex, so that any character survives.
 */
export function textString(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `(${text.replace(/[()\\]/g, '\\$&')})`;
  let hex = 'FEFF';
  for (let index = 0; index < text.length; index++)
    hex += text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0');
  return `<${hex}>`;
}

/** A date as PDF writes it, in UTC: D:YYYYMMDDHHmmSSZ. */
export function pdfDate(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `D:${String(date.getUTCFullYear()).padStart(4, '0')}${two(date.getUTCMonth() + 1)}` +
    `${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}` +
    `${two(date.getUTCSeconds())}Z`
  );
}
