import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTls, type TlsMaterial } from '../../src/tls.js';

let material: Promise<TlsMaterial> | undefined;

/** A self-signed certificate made the way the service makes its own, once per test file. */
export function testTls(): Promise<TlsMaterial> {
  material ??= loadTls({ DATA_DIR: mkdtempSync(join(tmpdir(), 'rebuttal-tls-')) });
  return material;
}
