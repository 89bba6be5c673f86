/**
 * A growing byte buffer for the PDF writer's content streams: written byte by byte instead of building
 * a string and encoding it (a three-page document's content is about 100 KB, and the string's
 * concatenations and its encoding took a quarter of the writer's time). One buffer a process, reused:
 * `bytes()` is a view that is valid until the next `reset()`, so it must be consumed (deflated) first.
 */
export class ByteSink {
  private buffer = Buffer.allocUnsafe(1 << 16);
  private length = 0;

  reset(): void {
    this.length = 0;
  }

  /** ASCII text (PDF operators and numbers). */
  ascii(text: string): void {
    this.reserve(text.length);
    const buffer = this.buffer;
    let at = this.length;
    for (let index = 0; index < text.length; index++) buffer[at++] = text.charCodeAt(index);
    this.length = at;
  }

  /** A two-byte CID as four upper-case hex digits. */
  hex4(value: number): void {
    this.reserve(4);
    const buffer = this.buffer;
    const at = this.length;
    buffer[at] = digits[(value >> 12) & 15] as number;
    buffer[at + 1] = digits[(value >> 8) & 15] as number;
    buffer[at + 2] = digits[(value >> 4) & 15] as number;
    buffer[at + 3] = digits[value & 15] as number;
    this.length = at + 4;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(count: number): void {
    if (this.length + count <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.length + count));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

const digits = Buffer.from('0123456789ABCDEF', 'latin1');
