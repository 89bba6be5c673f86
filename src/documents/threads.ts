import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * The file a thread runs: compiled, the .js file beside this one; run from source (tsx, vitest), the .ts
 * file, which a thread can load only once tsx's loader is registered in it (execArgv's --import is not
 * applied to threads on Node 20), so the thread then starts with a line that registers it first.
 */
export function threadFile(name: string): URL {
  return new URL(`./${name}.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
}

export function startThread(file: URL, resourceLimits?: ResourceLimits): Worker {
  if (!file.pathname.endsWith('.ts')) return new Worker(file, { resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(boot, { eval: true, resourceLimits });
}
