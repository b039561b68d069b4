import type { Bus, EgressClient, Kv, Logger, OptionsMirror, QuotaGate } from '@aigw/platform';
import type { ChannelDirectory } from './channels.js';
import type { TokenCache } from './token-cache.js';
import type { UsagePublisher } from './usage-publisher.js';
import type { StoredObjects } from './stored-objects.js';
import type { AccessTokens } from './access-tokens.js';
import type { LimitGate } from './limits/limit-gate.js';

/** Timeouts and bounds of the relay (config). */
export interface RelayLimits {
  /** Silence allowed between two streamed chunks before the stream is ended. */
  streamIdleTimeoutMs: number;
  /** Connecting to an upstream. */
  connectTimeoutMs: number;
  /** Waiting for an upstream's response headers. */
  headersTimeoutMs: number;
  /** The longest an answer may take to arrive in full after its headers; longer ones are cut. */
  answerTimeoutMs: number;
  /** Connections per upstream origin (0: unbounded). */
  connectionsPerOrigin: number;
  /** Largest upstream answer read whole (non-streaming). */
  maxUpstreamBodyBytes: number;
  /**
   * Largest request body of the JSON operations (chat, completions, embeddings, moderations,
   * messages, the playground), refused with 413 before it is read. Uploads take their own cap.
   */
  requestBodyBytes: number;
  /**
   * Largest multipart upload (image edits and variations, audio transcription and translation),
   * all its files together. Uploads are read whole (a retry on another channel sends them again).
   */
  uploadBytes: number;
  /** The largest answer kept for an Idempotency-Key retry; a larger one is not replayable. */
  idempotencyAnswerBytes: number;
}

/** What the relay's routes and responders work with; built once in plugin.ts. */
export interface RelayContext {
  bus: Bus;
  /** The shared key-value store (idempotency keys; the quota gate and the limits have their own handle). */
  kv: Kv;
  logger: Logger;
  options: OptionsMirror;
  tokens: TokenCache;
  channels: ChannelDirectory;
  egress: EgressClient;
  quota: QuotaGate;
  usage: UsagePublisher;
  /** Upstream objects (stored responses) by id: their channel and owner. */
  objects: StoredObjects;
  /** Access tokens of channels whose credential is exchanged for one (providers' `authorize`). */
  accessTokens: AccessTokens;
  /** Usage limits (docs/architecture.md section 5.9). */
  limitGate: LimitGate;
  limits: RelayLimits;
}

/** Margin of a hold over the longest its request can take (settling, publishing, clock steps). */
const HOLD_MARGIN_MS = 60_000;

/**
 * How long a request may hold quota: every attempt may wait for a connection and headers, and
 * the one answer read may take answerTimeoutMs; the relay cuts it there, so the hold never
 * expires under a live request.
 */
export function holdLifetimeMs(limits: RelayLimits, retryTimes: number): number {
  return (retryTimes + 1) * (limits.connectTimeoutMs + limits.headersTimeoutMs) + limits.answerTimeoutMs + HOLD_MARGIN_MS;
}
