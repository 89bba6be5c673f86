import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestApi } from './api.js';
import { storesOf } from './processes.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs the operator CLI as an operator would: a separate process, with the settings given as its environment. */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: root,
      timeout: 20_000,
      env: { ...process.env, ...env },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as CliResult;
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

/** The CLI against a test service's database and queues (and its APP_SECRET), as on-call runs it beside one. */
export function cliOf(api: Pick<TestApi, 'db' | 'config'>): (...args: string[]) => Promise<CliResult> {
  return (...args) => runCli(args, storesOf(api));
}
