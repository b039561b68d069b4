import type { Bus, EgressClient, Logger, OptionsMirror, QuotaGate } from '@aigw/platform';
import type { ChannelDirectory } from './channels.js';
import type { TokenCache } from './token-cache.js';
import type { UsagePublisher } from './usage-publisher.js';

/** Timeouts of the relay (config). */
export interface RelayLimits {
  /** Silence allowed between two streamed chunks before the stream is ended. */
  streamIdleTimeoutMs: number;
  /** Largest upstream answer read whole (non-streaming). */
  maxUpstreamBodyBytes: number;
}

/** What the relay's routes and responders work with; built once in plugin.ts. */
export interface RelayContext {
  bus: Bus;
  logger: Logger;
  options: OptionsMirror;
  tokens: TokenCache;
  channels: ChannelDirectory;
  egress: EgressClient;
  quota: QuotaGate;
  usage: UsagePublisher;
  limits: RelayLimits;
}
