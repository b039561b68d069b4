// Types of server.mjs, for TypeScript callers (tests).
import type { IncomingHttpHeaders } from 'node:http';

/** Resolved per-request behaviour (see README.md for each option). */
export interface MockOptions {
  chunks: number;
  words: number;
  delay: number;
  latency: number;
  /** 0 = answer normally. */
  status: number;
  hang: boolean;
  slowdrip: boolean;
  drip: number;
  /** -1 = never cut. */
  cut: number;
  nousage: boolean;
  negusage: boolean;
  badsse: boolean;
  hugeline: number;
  echoHeaders: boolean;
  /** '' = no redirect. */
  redirect: string;
  dims: number;
  /** Billing: hard_limit_usd of the subscription; -1 = the server's `billing.hardLimitUsd`. */
  hardLimit: number;
  /** Billing: total_usage in US cents; -1 = the server's `billing.totalUsage`. */
  totalUsage: number;
  /** The billing endpoints answer 404, as an upstream without them. */
  nobilling: boolean;
  /** Anthropic: cache_read_input_tokens reported. */
  cacheread: number;
  /** Anthropic: cache_creation_input_tokens reported. */
  cachewrite: number;
  /** Responses API: the answer ends `incomplete`. */
  incomplete: boolean;
  /** Midjourney and Suno tasks: polls answering IN_PROGRESS before the one answering SUCCESS (default 3). */
  tasksteps: number;
  /** Midjourney and Suno tasks: the K-th poll answers FAILURE; 0 = never. */
  taskfail: number;
  /** Midjourney and Suno tasks: never finish (IN_PROGRESS forever). */
  taskstuck: boolean;
  /** Midjourney: the submit answer's code (default 1; 21 exists, 22 queued, 23 queue full, 24 banned prompt, 3, 4, 9...). */
  mjcode: number;
  /** Suno: submits answer this HTTP status with Suno-API's error body; 0 = accept. */
  sunorefuse: number;
}

/** What OpenAI's legacy billing endpoints report; the balance a client computes is `hardLimitUsd - totalUsage / 100`. */
export interface MockBilling {
  /** `hard_limit_usd` of GET /v1/dashboard/billing/subscription, in US dollars. Default 100. */
  hardLimitUsd: number;
  /** `total_usage` of GET /v1/dashboard/billing/usage, in US cents. Default 0. */
  totalUsage: number;
}

/** `'chunks=50,delay=20'` (`;` works as a separator too) or an object of the same keys. */
export type MockOptionsSpec = string | Partial<Record<string, string | number | boolean>>;

export interface RecordedRequest {
  time: number;
  method: string;
  /** Path and query as received. */
  url: string;
  /** Path without the query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON ('' when empty). */
  body: any;
  options: MockOptions;
}

export interface StartMockUpstreamOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Applied to every request before the per-request header, body field and model suffix. */
  defaults?: MockOptionsSpec;
  /** How many requests `requests` keeps, oldest dropped first; default 1000, 0 = none. */
  maxRecorded?: number;
  /** Ids listed by GET /v1/models. */
  models?: string[];
  /** When set, requests must carry this key (Bearer, x-api-key, x-goog-api-key or ?key=). */
  apiKey?: string;
  /** The billing endpoints' figures for every key (a request's `hard-limit`/`total-usage` options win). */
  billing?: Partial<MockBilling>;
  /**
   * Options per API key, found where `apiKey` is looked for: an upstream account per key
   * (`{ 'sk-revoked': 'status=401', 'sk-rich': 'hard-limit=50,total-usage=750' }`). Applied after
   * `defaults`, before the header, body field and model suffix.
   */
  keys?: Record<string, MockOptionsSpec>;
}

export interface MockUpstream {
  /** e.g. http://127.0.0.1:41234 (no trailing slash, no /v1). */
  url: string;
  port: number;
  /** The last `maxRecorded` requests, oldest first. */
  requests: RecordedRequest[];
  /** The route modules' per-instance state (tasks, issued tokens), live: tests may change it. */
  state: Record<string, unknown>;
  /** Every request received, recorded or not. */
  stats: { received: number };
  defaults: Readonly<MockOptions>;
  /** The billing figures, live: change them and the next request answers the new ones. */
  billing: MockBilling;
  /** The options per API key, live: add, change or delete entries between requests. */
  keys: Record<string, MockOptionsSpec>;
  /** Forgets the recorded requests. */
  reset(): void;
  /** Stops listening and drops every open connection. Idempotent. */
  close(): Promise<void>;
}

export declare function startMockUpstream(options?: StartMockUpstreamOptions): Promise<MockUpstream>;
export declare function parseMockOptions(spec: MockOptionsSpec | undefined, into?: MockOptions): MockOptions;
export declare function splitModel(model: string): [string, string];
export declare function promptTokensOf(chars: number): number;
export declare function textCharsOf(body: unknown): number;
