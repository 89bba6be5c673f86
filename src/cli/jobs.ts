import { type Command, Option } from 'commander';
import { loadConfig } from '../config.js';
import { openQueues, type Queues } from '../jobs/catalog.js';
import { type QueueName, queueNames } from '../jobs/names.js';
import type { CliIo } from './accounts.js';

/**
 * `jobs failed|retry`: what on-call does in Bull Board, from a terminal. Retrying a failed submission job
 * submits the dispute again (services/submissions.ts explains how a retry reopens it).
 */

const queueOption = () =>
  new Option('--queue <queue>', 'queue name').choices([...queueNames]).makeOptionMandatory();

async function withQueues<T>(work: (queues: Queues) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const queues = openQueues({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX });
  try {
    return await work(queues);
  } finally {
    await queues.close();
  }
}

export function registerJobCommands(program: Command, io: Pick<CliIo, 'print'>): void {
  const jobs = program.command('jobs').description('queued jobs, for on-call');
  jobs
    .command('failed')
    .description('list failed jobs with the reason they failed (newest first, at most 100)')
    .addOption(queueOption())
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; json?: boolean }) => {
      const failed = await withQueues(async (queues) => queues.byName[options.queue].getFailed(0, 99));
      const rows = failed.map((job) => ({
        id: job.id,
        name: job.name,
        attempts: job.attemptsMade,
        failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        reason: job.failedReason,
      }));
      io.print(
        Boolean(options.json),
        rows,
        rows.map((row) => `${row.id}  ${row.name}  ${row.failed_at}  ${row.reason}`).join('\n') ||
          `no failed jobs in ${options.queue}`,
      );
    });
  jobs
    .command('retry')
    .description('retry one failed job (--id) or every failed job of the queue (--all)')
    .addOption(queueOption())
    .option('--id <jobId>', 'the failed job')
    .option('--all', 'every failed job of the queue')
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; id?: string; all?: boolean; json?: boolean }) => {
      if (Boolean(options.id) === Boolean(options.all)) throw new Error('give either --id or --all');
      const retried = await withQueues(async (queues) => {
        const queue = queues.byName[options.queue];
        const failed = options.id ? [await queue.getJob(options.id)] : await queue.getFailed();
        const ids: string[] = [];
        for (const job of failed) {
          if (!job || (await job.getState()) !== 'failed') {
            throw new Error(`no failed job ${options.id} in ${options.queue}`);
          }
          await job.retry('failed');
          ids.push(job.id ?? '');
        }
        return ids;
      });
      io.print(Boolean(options.json), { retried }, `retried ${retried.length} job(s): ${retried.join(', ')}`);
    });
}
