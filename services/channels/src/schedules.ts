import type { ChannelsContext } from './context.js';
import { BALANCE_ALL_JOB, TEST_ALL_JOB } from './operations.js';

/**
 * The health schedules: ChannelTestFrequency and ChannelUpdateFrequency (minutes, 0 = off) run
 * the test-all and balance-all sweeps as repeatable jobs. Every replica applies both options at
 * start and whenever one changes (each replica's options mirror gets every update); `repeat`
 * keeps one schedule per job name across replicas, so replicas applying the same value agree,
 * and 0 removes the schedule. A replica that stops leaves the schedule to the others.
 */

const schedules = [
  { option: 'ChannelTestFrequency', job: TEST_ALL_JOB },
  { option: 'ChannelUpdateFrequency', job: BALANCE_ALL_JOB },
] as const;

export interface ScheduleSettings {
  /** Length of one minute of the frequency options; only tests shorten it. */
  minuteMs: number;
}

export async function registerSchedules(context: ChannelsContext, settings: ScheduleSettings): Promise<void> {
  const { jobs, logger, options } = context;

  for (const { option, job } of schedules) {
    // Changes are applied one after the other, each reading the value current when it runs,
    // so a quick 5 -> 0 cannot end with the schedule of 5 still in place.
    let applying = Promise.resolve();
    const apply = async () => {
      const minutes = options.get(option);
      try {
        if (minutes > 0) await jobs.repeat(job, {}, { everyMs: minutes * settings.minuteMs });
        else await jobs.unrepeat(job);
        logger.info({ job, minutes }, minutes > 0 ? 'channel schedule set' : 'channel schedule off');
      } catch (error) {
        logger.error({ err: error, job, option }, 'channel schedule not applied');
      }
    };
    const reapply = () => (applying = applying.then(apply));
    options.onChange((key) => {
      if (key === option) void reapply();
    });
    await reapply();
  }
}
