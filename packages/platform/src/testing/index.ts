export * from './services.js';
export * from './infrastructure.js';
export * from './tcp-proxy.js';
export * from './random.js';
/** For a test process that tunes BullMQ itself (lock and stalled-check timing); production picks it in createJobs. */
export { createBullJobs } from '../jobs/bullmq-jobs.js';
export * from './otlp-collector.js';
