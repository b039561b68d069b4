import { z } from 'zod';

/**
 * Channels' env fields beyond the base ones: its own process reads them, and so does the
 * gateway when it runs channels all-in-one (one declaration, the same names and bounds).
 */
export const channelsConfigShape = {
  /** Secret the key encrypting channel keys at rest is derived from; every channels replica needs the same. */
  CHANNEL_KEY_SECRET: z.string().min(32, 'CHANNEL_KEY_SECRET must be at least 32 characters'),
  /** Length of one minute of ChannelTestFrequency and ChannelUpdateFrequency; only tests shorten it. */
  SCHEDULE_MINUTE_MS: z.coerce.number().int().positive().default(60_000),
};

type ChannelsConfig = z.infer<z.ZodObject<typeof channelsConfigShape>>;

/** The plugin options those fields set. */
export function channelsSettings(config: ChannelsConfig): { keySecret: string; scheduleMinuteMs: number } {
  return { keySecret: config.CHANNEL_KEY_SECRET, scheduleMinuteMs: config.SCHEDULE_MINUTE_MS };
}
