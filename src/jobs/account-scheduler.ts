import type { AccountScheduler } from '../features/accounts/connected-accounts.js';
import type { Queues } from './catalog.js';
import { enqueue } from './enqueue.js';
import { scheduleAccount } from './schedules.js';

/** The accounts feature's AccountScheduler over the mirror queue: a job scheduler per polled account. */
export function createQueueAccountScheduler(queues: Queues): AccountScheduler {
  return {
    schedule: (account) => scheduleAccount(queues, account),
    async pollNow(accountUid) {
      const job = await enqueue(queues, 'pollAccount', { accountUid });
      return job.id ?? '';
    },
  };
}
