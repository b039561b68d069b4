import { liveKeyIndexes, splitKeys, type RoutingChannel } from '@aigw/contracts';
import { BusRequestError, onEvent, requestTyped, type Bus, type Kv, type Logger, type Subscription } from '@aigw/platform';
import { RoutingIndex } from './domain/routing-index.js';

/** The key a call uses, and which of a multi-key channel's keys it is (failures are reported against it). */
export interface PickedKey {
  key: string;
  /** Absent for a channel with one key. */
  keyIndex?: number;
}

/**
 * The relay's copy of the channels: routing rows from a start-up snapshot plus
 * `channels.channel.updated/deleted` events, and the decrypted keys, fetched by request on first
 * use and held in memory only (they never travel on events). A changed row drops its keys.
 */
export interface ChannelDirectory {
  index: RoutingIndex;
  /** The channel's keys in order (one for most channels). */
  keys(channel: RoutingChannel): Promise<readonly string[]>;
  /**
   * The key for one call: the channel's only key, or one of a multi-key channel's live keys, at
   * random or in turn (`polling`: a counter in the Kv port, so the relay's replicas share the turn).
   */
  pick(channel: RoutingChannel): Promise<PickedKey>;
  /** `pick`'s key, for calls that report no failure against a key. */
  key(channel: RoutingChannel): Promise<string>;
  close(): Promise<void>;
}

/** A multi-key channel whose every key is off: channels disables it, but a request may come first. */
export class NoLiveKeyError extends Error {
  constructor(channelId: number) {
    super(`channel ${channelId} has no live key`);
    this.name = 'NoLiveKeyError';
  }
}

/** How long a polling turn counter lives without use (it restarts from the first key after). */
const TURN_TTL_MS = 24 * 60 * 60_000;

export async function createChannelDirectory(options: { bus: Bus; kv: Kv; logger: Logger; snapshotTimeoutMs?: number }): Promise<ChannelDirectory> {
  const { bus, kv, logger } = options;
  const index = new RoutingIndex();
  const cached = new Map<number, { version: number; keys: Promise<string[]> }>();

  const subscriptions: Subscription[] = await Promise.all([
    onEvent(
      bus,
      'channels.channel.updated',
      async (channel) => {
        if (index.upsert(channel)) cached.delete(channel.id);
      },
      { logger },
    ),
    onEvent(
      bus,
      'channels.channel.deleted',
      async ({ id }) => {
        index.remove(id);
        cached.delete(id);
      },
      { logger },
    ),
  ]);
  await loadSnapshot(bus, index, logger, options.snapshotTimeoutMs ?? 60_000);

  const keys = (channel: RoutingChannel): Promise<string[]> => {
    const known = cached.get(channel.id);
    if (known && known.version === channel.version) return known.keys;
    const fetched = requestTyped(bus, 'channels.channel.key', { channel_id: channel.id }, { timeoutMs: 3_000 }).then(({ key }) =>
      // A channel with one key keeps its key text whole (a Vertex service account spans lines).
      channel.multi_key ? splitKeys(key) : [key],
    );
    cached.set(channel.id, { version: channel.version, keys: fetched });
    fetched.catch(() => cached.delete(channel.id));
    return fetched;
  };

  const pick = async (channel: RoutingChannel): Promise<PickedKey> => {
    const list = await keys(channel);
    if (!channel.multi_key) return { key: list[0]! };
    const live = liveKeyIndexes(channel.multi_key).filter((at) => at < list.length);
    if (live.length === 0) throw new NoLiveKeyError(channel.id);
    const turn =
      channel.multi_key.mode === 'polling' ? (await kv.increment(`channel-key-turn:${channel.id}`, { ttlMs: TURN_TTL_MS })) - 1 : Math.random() * live.length;
    const keyIndex = live[Math.floor(turn) % live.length]!;
    return { key: list[keyIndex]!, keyIndex };
  };

  return {
    index,
    keys,
    pick,
    key: async (channel) => (await pick(channel)).key,
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
