import { describeError, type Logger } from '../logger.js';
import { ProcessorError } from '../processors/types.js';

/**
 * What an adapter's call threw, as the failure its caller records (a submission, an alert's refund): a
 * ProcessorError as it is; anything else is logged and taken as transient, since whether the processor
 * acted is not known, and the call is tried again under the same idempotency key.
 */
export function adapterFailure(adapter: string, thrown: unknown, log: Logger): ProcessorError {
  if (thrown instanceof ProcessorError) return thrown;
  log.error({ err: describeError(thrown) }, 'adapter threw');
  return new ProcessorError(adapter, 'The call to the processor failed unexpectedly.', { retryable: true });
}
