import type { Logger } from '../logger.js';
import { measuredHandler } from './job-metrics.js';
import type { JobHandler, JobOptions, Jobs, ScheduleStatus } from './jobs.js';

interface QueuedJob {
  id: string;
  name: string;
  data: unknown;
  attempt: number;
  attempts: number;
  backoffMs: number;
}

interface Worker {
  handler: JobHandler;
  concurrency: number;
  running: number;
}

interface Schedule {
  timer: NodeJS.Timeout;
  everyMs: number;
  /** Epoch ms of the next tick. */
  nextRunAt: number;
}

interface Queue {
  ready: QueuedJob[];
  /** Ids of jobs waiting, delayed or running: what `jobId` dedupes against. */
  pending: Set<string>;
  workers: Worker[];
}

/** A JSON round trip, as through Redis: data that would not survive BullMQ fails here too. */
function roundTrip(data: unknown): unknown {
  return data === undefined ? undefined : JSON.parse(JSON.stringify(data));
}

/**
 * In-process jobs: the embedded counterpart of BullMQ, with the same retry, delay, dedupe and
 * repeat behaviour. Jobs live in memory only, so a restart forgets them (as docs/architecture.md
 * section 4 says).
 */
export function createMemoryJobs(options: { logger: Logger }): Jobs {
  const { logger } = options;
  const queues = new Map<string, Queue>();
  const timers = new Set<NodeJS.Timeout>();
  const schedules = new Map<string, Schedule>();
  const running = new Set<Promise<void>>();
  let nextId = 0;
  let closed = false;

  function queueOf(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = { ready: [], pending: new Set(), workers: [] };
      queues.set(name, queue);
    }
    return queue;
  }

  // Timers never keep the process alive: close() is how an owner ends pending work.
  function later(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, delayMs);
    timer.unref();
    timers.add(timer);
  }

  function enqueue(job: QueuedJob, delayMs: number): void {
    const queue = queueOf(job.name);
    if (delayMs <= 0) {
      queue.ready.push(job);
      dispatch(queue);
      return;
    }
    later(delayMs, () => {
      queue.ready.push(job);
      dispatch(queue);
    });
  }

  function dispatch(queue: Queue): void {
    while (!closed && queue.ready.length > 0) {
      const free = queue.workers.filter((worker) => worker.running < worker.concurrency);
      if (free.length === 0) return;
      const worker = free.reduce((least, candidate) => (candidate.running < least.running ? candidate : least));
      const job = queue.ready.shift()!;
      const execution = execute(queue, worker, job);
      running.add(execution);
      void execution.finally(() => running.delete(execution));
    }
  }

  async function execute(queue: Queue, worker: Worker, job: QueuedJob): Promise<void> {
    worker.running += 1;
    try {
      await worker.handler({ id: job.id, name: job.name, data: job.data, attempt: job.attempt, attempts: job.attempts });
      queue.pending.delete(job.id);
    } catch (error) {
      if (job.attempt < job.attempts && !closed) {
        const delayMs = job.backoffMs * 2 ** (job.attempt - 1);
        logger.warn({ err: error, job: job.name, jobId: job.id, attempt: job.attempt, retryInMs: delayMs }, 'job failed, will retry');
        enqueue({ ...job, attempt: job.attempt + 1 }, delayMs);
      } else {
        logger.error({ err: error, job: job.name, jobId: job.id, attempt: job.attempt }, 'job failed for good');
        queue.pending.delete(job.id);
      }
    } finally {
      worker.running -= 1;
      dispatch(queue);
    }
  }

  function add(name: string, data: unknown, jobOptions: JobOptions = {}): void {
    if (closed) throw new Error('jobs: add after close');
    const copy = roundTrip(data);
    const id = jobOptions.jobId ?? `${++nextId}`;
    const queue = queueOf(name);
    if (queue.pending.has(id)) return;
    queue.pending.add(id);
    const job = { id, name, data: copy, attempt: 1, attempts: jobOptions.attempts ?? 3, backoffMs: jobOptions.backoffMs ?? 1000 };
    enqueue(job, jobOptions.delayMs ?? 0);
  }

  return {
    async add(name, data, jobOptions) {
      add(name, data, jobOptions);
    },

    async repeat(name, data, { everyMs }) {
      if (closed) throw new Error('jobs: repeat after close');
      const copy = roundTrip(data);
      const existing = schedules.get(name);
      clearInterval(existing?.timer);
      // One run at a time: a tick that finds the previous run still pending is skipped.
      const tick = () => add(name, copy, { jobId: `repeat:${name}`, attempts: 1 });
      const schedule: Schedule = {
        everyMs,
        nextRunAt: Date.now() + everyMs,
        timer: setInterval(() => {
          schedule.nextRunAt = Date.now() + everyMs;
          tick();
        }, everyMs),
      };
      schedule.timer.unref();
      schedules.set(name, schedule);
      // Like BullMQ's scheduler: the first run is immediate, replacing a schedule adds no extra run.
      if (!existing) tick();
    },

    async unrepeat(name) {
      clearInterval(schedules.get(name)?.timer);
      schedules.delete(name);
    },

    async schedules(names = []) {
      // The timers are the store: a wanted schedule is always there.
      return [...new Set([...schedules.keys(), ...names])].map((name): ScheduleStatus => {
        const schedule = schedules.get(name);
        return schedule
          ? { name, wanted: true, everyMs: schedule.everyMs, registered: true, nextRunAt: schedule.nextRunAt }
          : { name, wanted: false, everyMs: null, registered: false, nextRunAt: null };
      });
    },

    async work(name, handler, workOptions = {}) {
      if (closed) throw new Error('jobs: work after close');
      const queue = queueOf(name);
      queue.workers.push({ handler: measuredHandler(name, handler), concurrency: workOptions.concurrency ?? 1, running: 0 });
      dispatch(queue);
    },

    async stopWorking() {
      // A running handler's finally dispatches from queue.workers, so it takes nothing more.
      for (const queue of queues.values()) queue.workers = [];
      await Promise.all(running);
    },

    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      for (const schedule of schedules.values()) clearInterval(schedule.timer);
      timers.clear();
      schedules.clear();
      await Promise.all(running);
    },
  };
}
