import { decodeOptionValue, defaultOptionValues, isOptionKey, type OptionKey, type OptionValues } from '@aigw/contracts';
import type { Bus, Subscription } from './bus/bus.js';
import { BusRequestError } from './bus/bus.js';
import type { Logger } from './logger.js';
import { onEvent, requestTyped } from './messaging.js';

/**
 * A service's local copy of the options (settings), owned by identity: loaded at start with the
 * `identity.option.snapshot` request, then kept current by `identity.option.updated` events.
 * Per-key versions make late or repeated events harmless.
 */
export interface OptionsMirror {
  get<K extends OptionKey>(key: K): OptionValues[K];
  /** Everything, typed. Do not mutate. */
  all(): Readonly<OptionValues>;
  /** Registers a callback run after a key changed. */
  onChange(listener: (key: OptionKey) => void): void;
  close(): Promise<void>;
}

export interface OptionsMirrorOptions {
  bus: Bus;
  logger: Logger;
  /** How long to keep retrying the snapshot while identity starts. */
  snapshotTimeoutMs?: number;
}

export async function createOptionsMirror(options: OptionsMirrorOptions): Promise<OptionsMirror> {
  const { bus, logger } = options;
  const values = defaultOptionValues() as Record<OptionKey, unknown>;
  const versions = new Map<string, number>();
  const listeners: Array<(key: OptionKey) => void> = [];

  const apply = (key: string, raw: string, version: number): void => {
    if (!isOptionKey(key)) return;
    if ((versions.get(key) ?? -1) >= version) return;
    const decoded = decodeOptionValue(key, raw);
    if (!decoded.ok) {
      logger.warn({ key }, `ignored a stored option that does not parse: ${decoded.message}`);
      return;
    }
    versions.set(key, version);
    values[key] = decoded.value;
    for (const listener of listeners) listener(key);
  };

  const subscription: Subscription = await onEvent(
    bus,
    'identity.option.updated',
    async (payload) => {
      if (payload.value !== null) apply(payload.key, payload.value, payload.version);
      else await loadSnapshot(bus, apply, 5_000); // a secret changed: fetch it, it never travels on events
    },
    { logger },
  );
  await loadSnapshot(bus, apply, options.snapshotTimeoutMs ?? 60_000);

  return {
    get: (key) => values[key] as OptionValues[typeof key],
    all: () => values as OptionValues,
    onChange: (listener) => void listeners.push(listener),
    close: () => subscription.unsubscribe(),
  };
}

async function loadSnapshot(bus: Bus, apply: (key: string, raw: string, version: number) => void, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const snapshot = await requestTyped(bus, 'identity.option.snapshot', {}, { timeoutMs: 5_000 });
      for (const row of snapshot.options) apply(row.key, row.value, row.version);
      return;
    } catch (error) {
      const retryable = error instanceof BusRequestError && error.reason !== 'remote-error';
      if (!retryable || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
