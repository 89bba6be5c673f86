/**
 * The four queues (docs/architecture.md, "Queues and guarantees"): below the job layer, since config reads
 * them too (WORKERS). A worker process runs any of them.
 */
export const queueNames = ['mirror', 'submission', 'deadline', 'webhook'] as const;
export type QueueName = (typeof queueNames)[number];
