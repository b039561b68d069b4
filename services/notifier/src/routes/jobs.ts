import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordedJobs, type JobView } from '@aigw/contracts';
import { readJobRuns } from '@aigw/platform';
import type { NotifierContext } from '../context.js';

/**
 * Root's view of the background jobs: every recorded job (the list in contracts, so jobs that
 * never ran are shown too) with its last run and its schedule. Runs are recorded by whichever
 * service ran them, in the Kv store the services share, and schedules live in the job store they
 * share, so this reads no other service's tables.
 */
export const jobRoutes: FastifyPluginAsyncZod<{ context: NotifierContext }> = async (app, { context }) => {
  app.get('/api/job/', { config: { access: 'root' } }, async () => {
    const names = recordedJobs.map((job) => job.name);
    const [runs, schedules] = await Promise.all([readJobRuns(context.kv, names), context.jobs.schedules(names)]);
    const scheduleOf = new Map(schedules.map((schedule) => [schedule.name, schedule]));
    const data: JobView[] = recordedJobs.map((job) => {
      const schedule = scheduleOf.get(job.name)!;
      return {
        ...job,
        ...runs.get(job.name)!,
        schedule_status: {
          wanted: schedule.wanted,
          every_ms: schedule.everyMs,
          registered: schedule.registered,
          next_run_at: schedule.nextRunAt === null ? null : Math.floor(schedule.nextRunAt / 1000),
        },
      };
    });
    return { success: true, message: '', data };
  });
};
