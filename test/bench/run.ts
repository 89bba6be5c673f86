import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench [-- --quick] [-- name...]`: runs every bench file directly under test/bench/ (not this
 * runner, not lib/) in turn, each in a child process of its own so that one bench's servers, pools and
 * timers cannot disturb the next one's figures. Flags (`--quick`) are passed through; bare words select
 * benches by file name (`npm run bench -- api`). Each bench must end its output with a RESULT line; a bench
 * that fails, or ends any other way, makes the run exit non-zero.
 */

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, '..', '..');
const resultLine =
  /^RESULT \S+ value=-?[\d.]+(?:e[+-]?\d+)? unit=\S+ ratio=-?[\d.]+(?:e[+-]?\d+)? target=[\d.]+$/;

const args = process.argv.slice(2);
const flags = args.filter((arg) => arg.startsWith('-'));
const wanted = args.filter((arg) => !arg.startsWith('-'));

const benches = readdirSync(benchDir, { withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && entry.name !== 'run.ts')
  .map((entry) => basename(entry.name, '.ts'))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

const unknown = wanted.filter((name) => !benches.includes(name));
if (unknown.length > 0 || benches.length === 0) {
  console.error(`No bench named ${unknown.join(', ') || '(any)'} under test/bench/.`);
  process.exit(2);
}

let current: ReturnType<typeof spawn> | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // The bench cleans up (servers, database) on its own signal; the runner just waits for it to go.
    current?.kill(signal);
    setTimeout(() => process.exit(130), 15_000).unref();
  });
}

function runBench(name: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(benchDir, `${name}.ts`), ...flags], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    current = child;
    let lastLine = '';
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      process.stdout.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') lastLine = line.trim();
    });
    child.on('error', (error) => resolve(`could not start: ${error.message}`));
    child.on('close', (code, signal) => {
      current = undefined;
      if (partial.trim() !== '') lastLine = partial.trim();
      if (code !== 0) resolve(`exited with ${signal ?? `code ${code}`}`);
      else if (!resultLine.test(lastLine)) resolve(`did not end with a RESULT line (last: ${lastLine})`);
      else resolve(null);
    });
  });
}

const failures: string[] = [];
for (const name of benches) {
  console.log(`# bench ${name}${flags.length > 0 ? ` ${flags.join(' ')}` : ''}`);
  const problem = await runBench(name);
  if (problem) {
    failures.push(`${name}: ${problem}`);
    console.error(`bench ${name} failed: ${problem}`);
  }
}
if (failures.length > 0) {
  console.error(`\n${failures.length} of ${benches.length} bench(es) failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
