import type { Jobs } from './jobs.js';

/** One schedule in `/readyz`. */
export interface ScheduleReportEntry {
  name: string;
  every_ms: number | null;
  /** The job store holds it now. */
  registered: boolean;
  /** ISO time of the next run; null when not registered. */
  next_run_at: string | null;
}

/** What `/readyz` says about the schedules the process wants. */
export interface SchedulesReport {
  /** `degraded`: a wanted schedule is missing from the store (see `missing`), or the store did not answer (see `error`). */
  status: 'ok' | 'degraded';
  schedules: ScheduleReportEntry[];
  /** Wanted, not in the store: the jobs adapter re-creates them on its next check. */
  missing?: string[];
  error?: string;
}

/** A probe is answered fast, or not at all: a store that hangs is reported, not waited for. */
const REPORT_TIMEOUT_MS = 1_000;

/**
 * The schedules `jobs` wants, with presence and next run, for a readiness probe. Never throws:
 * an unreachable store is reported as degraded.
 */
export async function reportSchedules(jobs: Jobs, timeoutMs = REPORT_TIMEOUT_MS): Promise<SchedulesReport> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the job store did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const statuses = await Promise.race([jobs.schedules(), timeout]);
    const schedules = statuses.map((status) => ({
      name: status.name,
      every_ms: status.everyMs,
      registered: status.registered,
      next_run_at: status.nextRunAt === null ? null : new Date(status.nextRunAt).toISOString(),
    }));
    const missing = statuses.filter((status) => !status.registered).map((status) => status.name);
    return missing.length > 0 ? { status: 'degraded', schedules, missing } : { status: 'ok', schedules };
  } catch (error) {
    return { status: 'degraded', schedules: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
