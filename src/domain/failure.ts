/**
 * The one convention of this service's own errors: each class sets a stable `name` (the logs and the job
 * board show it) and says whether it is `permanent`, that is whether doing the same work again cannot help
 * (docs/contributing.md, "Conventions"). `isPermanent` is the one question everything that retries asks.
 */
export abstract class Failure extends Error {
  abstract override readonly name: string;
  /** Trying the same work again cannot succeed until someone changes something. */
  abstract readonly permanent: boolean;
}

/** Whether retrying cannot help: only a Failure that says so; anything else may be transient. */
export function isPermanent(error: unknown): boolean {
  return error instanceof Failure && error.permanent;
}
