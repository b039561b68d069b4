import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordedJobs, type JobView } from '@aigw/contracts';
import { readJobRuns } from '@aigw/platform';
import type { NotifierContext } from '../context.js';

/**
 * Root's view of the background jobs: every recorded job (the list in contracts, so jobs that
 * never ran are shown too) with its last run. Runs are recorded by whichever service ran them,
 * in the Kv store the services share, so this reads no other service's tables.
 */
export const jobRoutes: FastifyPluginAsyncZod<{ context: NotifierContext }> = async (app, { context }) => {
  app.get('/api/job/', { config: { access: 'root' } }, async () => {
    const runs = await readJobRuns(context.kv, recordedJobs.map((job) => job.name));
    const data: JobView[] = recordedJobs.map((job) => ({ ...job, ...runs.get(job.name)! }));
    return { success: true, message: '', data };
  });
};
