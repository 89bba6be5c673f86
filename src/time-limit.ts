import { Failure } from './domain/failure.js';

/** Thrown by `within` when the work did not finish in time; the next try may be in time. */
export class TimeLimitError extends Failure {
  override readonly name = 'TimeLimitError';
  readonly permanent = false;
}

/**
 * `work`'s result, or a TimeLimitError (`no answer from <what> within <ms> ms`) once `ms` have passed: for
 * a caller that must answer (an operator's command, a readiness probe) while a dependency hangs.
 */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeLimitError(`no answer from ${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
