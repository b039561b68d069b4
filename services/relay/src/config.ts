import os from 'node:os';
import { z } from 'zod';
import type { RelayLimits } from './context.js';

/** The JSON operations' request body cap by default (RELAY_BODY_LIMIT_BYTES). */
export const DEFAULT_REQUEST_BODY_BYTES = 20 * 1024 * 1024;

/** The multipart operations' upload cap by default (RELAY_UPLOAD_LIMIT_BYTES): gpt-image edits take up to 50 MB. */
export const DEFAULT_UPLOAD_BYTES = 50 * 1024 * 1024;

/**
 * The relay's tunables as env fields: its own process reads them, and so does the gateway when
 * it runs the relay all-in-one (one declaration, the same names and bounds).
 */
export const relayConfigShape = {
  /** Silence allowed between two streamed chunks before a stream is ended with an error event. */
  STREAMING_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Connecting to an upstream (DNS, TCP, TLS). */
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Waiting for an upstream's response headers (long non-streaming answers need minutes). */
  UPSTREAM_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
  /**
   * The longest an upstream's answer may take to arrive in full once its headers came, streamed
   * or not; a longer one is cut (with an error event on a stream) and billed for what was
   * delivered. With the two timeouts above it bounds how long a request can hold quota.
   */
  UPSTREAM_ANSWER_TIMEOUT_MS: z.coerce.number().int().positive().default(3_600_000),
  /**
   * Connections kept open to one upstream origin (undici's pool per origin; 0: as many as requests
   * in flight). A stream holds its connection to the end, so a bound queues every request past it:
   * set one only to spare an upstream (or a small file-descriptor limit) at that cost.
   */
  UPSTREAM_CONNECTIONS_PER_ORIGIN: z.coerce.number().int().min(0).default(0),
  /**
   * This process's name on its quota holds' lease: stable for one slot (a pod's name) and unique
   * among the relays running. A restart under the same name releases the previous holds at once.
   * Default: the host name and process id.
   */
  INSTANCE_NAME: z
    .string()
    .regex(/^[^#\s]{1,120}$/, 'INSTANCE_NAME: 1 to 120 characters without spaces or #')
    .optional(),
  /** How long the lease outlives its last renewal: a stopped relay's holds are released this long after, at the next sweep. */
  HOLD_LEASE_TTL_MS: z.coerce.number().int().min(1_000).max(600_000).default(20_000),
  /** How often holds of stopped relays (and past their expiry) are swept. */
  HOLD_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  /**
   * Largest request body of the JSON relay operations (chat, completions, embeddings,
   * moderations, messages), in bytes; larger ones get 413 before they are read. Images inlined
   * as base64 are what make chat bodies large.
   */
  RELAY_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(DEFAULT_REQUEST_BODY_BYTES),
  /**
   * Largest upload of the multipart operations (image edits and variations, audio transcription
   * and translation), in bytes, all files of a request together; larger ones get 413.
   */
  RELAY_UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).default(DEFAULT_UPLOAD_BYTES),
  /**
   * Usage events the relay keeps unacknowledged in its outbox (DATA_DIR/usage-outbox/<INSTANCE_NAME>)
   * while the bus is away; past this (or USAGE_OUTBOX_MAX_BYTES) new requests get 503 rather
   * than go unbilled.
   */
  USAGE_OUTBOX_MAX_RECORDS: z.coerce.number().int().min(1).default(100_000),
  /** The same bound in bytes of those events. */
  USAGE_OUTBOX_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(256 * 1024 * 1024),
  /**
   * The largest answer kept for a retry with the same Idempotency-Key (24 hours, in Redis); the
   * retry of a larger one is answered 422 (not replayable) rather than run and charged again.
   */
  IDEMPOTENCY_MAX_ANSWER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** How often unfinished Midjourney and Suno tasks are asked about upstream (one run at a time across replicas). */
  TASK_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** A task unfinished this long after its submit fails, and its charge goes back to the user and the API key. */
  TASK_TIMEOUT_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  /**
   * Which usage limits admit requests unchecked while the counters (Redis) are unreachable: a
   * comma list of `rate` (requests and tokens per window) and `concurrency`, or `none`. The
   * default keeps traffic flowing past rate limits and refuses (503) what a concurrency limit
   * would have to count, since an unchecked burst could overload a shared upstream.
   */
  LIMITS_FAIL_OPEN: z
    .string()
    .default('rate')
    .transform((text) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '' && item !== 'none'),
    )
    .pipe(z.array(z.enum(['rate', 'concurrency'], { error: 'LIMITS_FAIL_OPEN: a comma list of rate and concurrency, or none' }))),
};

type RelayConfig = z.infer<z.ZodObject<typeof relayConfigShape>>;

/** What the relay plugin takes from those fields. */
export interface RelaySettings {
  limits: RelayLimits;
  instanceName: string;
  leaseTtlMs: number;
  holdSweepEveryMs: number;
  taskPollEveryMs: number;
  taskTimeoutMs: number;
  /** LIMITS_FAIL_OPEN. */
  limitsFailOpen: Array<'rate' | 'concurrency'>;
  /** The durable usage outbox: its folder under DATA_DIR/usage-outbox (INSTANCE_NAME, or `local`) and its bounds. */
  usageOutbox: { name: string; maxRecords: number; maxBytes: number };
}

/** The plugin settings those fields set. */
export function relaySettings(config: RelayConfig): RelaySettings {
  return {
    limits: {
      streamIdleTimeoutMs: config.STREAMING_TIMEOUT_MS,
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
      answerTimeoutMs: config.UPSTREAM_ANSWER_TIMEOUT_MS,
      connectionsPerOrigin: config.UPSTREAM_CONNECTIONS_PER_ORIGIN,
      maxUpstreamBodyBytes: 64 * 1024 * 1024,
      requestBodyBytes: config.RELAY_BODY_LIMIT_BYTES,
      uploadBytes: config.RELAY_UPLOAD_LIMIT_BYTES,
      idempotencyAnswerBytes: config.IDEMPOTENCY_MAX_ANSWER_BYTES,
    },
    instanceName: config.INSTANCE_NAME ?? defaultInstanceName(),
    leaseTtlMs: config.HOLD_LEASE_TTL_MS,
    holdSweepEveryMs: config.HOLD_SWEEP_INTERVAL_MS,
    taskPollEveryMs: config.TASK_POLL_INTERVAL_MS,
    taskTimeoutMs: config.TASK_TIMEOUT_MINUTES * 60_000,
    limitsFailOpen: config.LIMITS_FAIL_OPEN,
    // Without INSTANCE_NAME the name has the pid in it: the folder must be one a restart finds again.
    usageOutbox: { name: config.INSTANCE_NAME ?? 'local', maxRecords: config.USAGE_OUTBOX_MAX_RECORDS, maxBytes: config.USAGE_OUTBOX_MAX_BYTES },
  };
}

/** Host and pid: unique among processes, and stable across container restarts (pid 1 in its pod). */
export function defaultInstanceName(): string {
  return `${os.hostname().replace(/[#\s]/g, '-').slice(0, 100)}:${process.pid}`;
}
