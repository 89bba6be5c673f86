/** The four queues (docs/architecture.md, "Queues and guarantees"); a worker process runs any of them (`WORKERS`). */
export const queueNames = ['mirror', 'submission', 'deadline', 'webhook'] as const;
export type QueueName = (typeof queueNames)[number];
