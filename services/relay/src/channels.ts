import type { RoutingChannel } from '@aigw/contracts';
import { BusRequestError, onEvent, requestTyped, type Bus, type Logger, type Subscription } from '@aigw/platform';
import { RoutingIndex } from './domain/routing-index.js';

/**
 * The relay's copy of the channels: routing rows from a start-up snapshot plus
 * `channels.channel.updated/deleted` events, and the decrypted keys, fetched by request on first
 * use and held in memory only (they never travel on events). A changed row drops its key.
 */
export interface ChannelDirectory {
  index: RoutingIndex;
  key(channel: RoutingChannel): Promise<string>;
  close(): Promise<void>;
}

export async function createChannelDirectory(options: { bus: Bus; logger: Logger; snapshotTimeoutMs?: number }): Promise<ChannelDirectory> {
  const { bus, logger } = options;
  const index = new RoutingIndex();
  const keys = new Map<number, { version: number; key: Promise<string> }>();

  const subscriptions: Subscription[] = await Promise.all([
    onEvent(
      bus,
      'channels.channel.updated',
      async (channel) => {
        if (index.upsert(channel)) keys.delete(channel.id);
      },
      { logger },
    ),
    onEvent(
      bus,
      'channels.channel.deleted',
      async ({ id }) => {
        index.remove(id);
        keys.delete(id);
      },
      { logger },
    ),
  ]);
  await loadSnapshot(bus, index, logger, options.snapshotTimeoutMs ?? 60_000);

  return {
    index,
    key(channel) {
      const known = keys.get(channel.id);
      if (known && known.version === channel.version) return known.key;
      const key = requestTyped(bus, 'channels.channel.key', { channel_id: channel.id }, { timeoutMs: 3_000 }).then(({ key }) => key);
      keys.set(channel.id, { version: channel.version, key });
      key.catch(() => keys.delete(channel.id));
      return key;
    },
    close: async () => void (await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()))),
  };
}

/** Waits for the channels service at start (it may come up later in a cluster). */
async function loadSnapshot(bus: Bus, index: RoutingIndex, logger: Logger, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { channels } = await requestTyped(bus, 'channels.routing.snapshot', {}, { timeoutMs: 5_000 });
      for (const channel of channels) index.upsert(channel);
      return;
    } catch (error) {
      if (!(error instanceof BusRequestError) || error.reason === 'remote-error' || Date.now() > deadline) throw error;
      logger.debug('waiting for the channels snapshot');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
