import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * A file of a font package from the npm registry (nothing is fetched at run time). The packages export
 * their scripts, not their folders: the package's folder is found from its main script.
 */
export function fontFile(name: string, path: string): string {
  const main = require.resolve(name);
  return join(main.slice(0, main.lastIndexOf(name) + name.length), path);
}
