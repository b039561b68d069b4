import type { RoutingChannel } from '@aigw/contracts';
import type { OperationName } from '../operations/types.js';

/**
 * Provider adapters (style rules 9 to 13, CONTRIBUTING.md): pure data in, data out. They never see
 * Fastify's request or reply, never do I/O; the relay core sends what they build through the egress
 * client and feeds them what comes back. Clients speak OpenAI's chat format to us; each provider
 * maps it to its upstream protocol and back.
 */

/** Token usage in OpenAI's terms, normalised across providers (cached prompt tokens included in prompt). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Prompt tokens served from the provider's cache (billed at the cache ratio). */
  cached_tokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic's cache_creation_input_tokens; billed at CreateCacheRatio). */
  cache_creation_tokens?: number;
}

/** What a provider needs to know about the call. */
export interface ProviderContext {
  channel: RoutingChannel;
  /** The channel's decrypted key. */
  key: string;
  /** The model name sent upstream (after the channel's model mapping). */
  upstreamModel: string;
  /** The model the client asked for (logs and billing use this one). */
  requestedModel: string;
  stream: boolean;
  /** The client's headers its operation forwards (`anthropic-beta` on Anthropic's own API), lower-case names. */
  forwarded?: Record<string, string>;
}

/** An HTTP call for the egress client. */
export interface UpstreamRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** JSON text. */
  body?: string;
  /** A multipart form instead of `body` (image edits, audio transcription), encoded when sent. */
  form?: FormData;
  /** Request parameters the upstream cannot take, dropped (style rule 12): for the log, never silent. */
  warnings?: string[];
  /**
   * Sent over a WebSocket instead (iFlytek Spark): `url` is ws(s)://, `body` the one message sent
   * once it opens; each message the upstream sends comes back as one server-sent event (its text
   * the event's data) until the upstream closes (upstream-socket.ts). Such a provider's chat has
   * no `response`: a whole answer is the stream folded.
   */
  websocket?: true;
}

/** A parsed chat answer: the OpenAI-format body for the client, and the usage if the upstream gave it. */
export interface ChatResult {
  body: Record<string, unknown>;
  usage: Usage | null;
}

/** One server-sent event from the upstream. */
export interface StreamEvent {
  event?: string;
  data: string;
}

/** What one upstream event becomes. */
export interface StreamOutput {
  /** OpenAI chunk JSON to send to the client as `data: ...`, or undefined to send nothing. */
  data?: string;
  /** Completion text this event produced (counted when the upstream reports no usage). */
  text?: string;
  /** Usage, when the upstream reported it (the last report wins). */
  usage?: Usage;
  /**
   * `data` is the usage-only chunk (empty `choices`) that `stream_options.include_usage` adds:
   * the relay drops it when the client did not ask for usage.
   */
  usageOnly?: boolean;
  /**
   * The upstream reported an error inside the stream; `status` is the HTTP status it means when a
   * whole answer is folded from the stream (shared/stream-fold.ts; 502 when absent).
   */
  error?: { message: string; type: string; code: string; status?: number };
}

/** Converts one upstream stream into OpenAI chunks; one instance per request. */
export interface StreamConverter {
  onEvent(event: StreamEvent): StreamOutput[];
  /** The upstream stream ended. */
  onEnd(): StreamOutput[];
}

/** The Gemini API methods the relay serves. */
export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'embedContent' | 'batchEmbedContents';

/**
 * An access-token exchange a provider describes (pure data): the relay runs it through the egress
 * guard under the channel's flag, caches the token per channel and key until shortly before it
 * expires, and shares one exchange among the requests waiting for it.
 */
export interface TokenExchange {
  /** What distinguishes this token among the channel's (a scope, a region); '' when one token serves all. */
  scope: string;
  /** The exchange call, or a function building it only when no cached token serves (Vertex signs a JWT for it). */
  request: UpstreamRequest | (() => UpstreamRequest | Promise<UpstreamRequest>);
  /** The token and when it expires (epoch ms) from the exchange's JSON answer; throws when the answer has none. */
  parse(json: unknown, now: number): { token: string; expiresAt: number };
}

/** What the relay lends a provider's `authorize`: cached access tokens. */
export interface AuthorizeTools {
  accessToken(exchange: TokenExchange): Promise<string>;
}

/**
 * Splits an upstream stream into events (SSE by default). Providers with another framing (AWS's
 * binary event stream) bring their own; the relay feeds it the raw chunks as they come.
 */
export interface EventFramer {
  push(chunk: Uint8Array): StreamEvent[];
  /** The stream ended: whatever complete event is left (a truncated frame is dropped). */
  end(): StreamEvent[];
}

/** How a provider reads its upstream's balance: the calls, and the balance (in the upstream's money) from their answers. */
export interface BalanceQuery {
  requests(context: Pick<ProviderContext, 'channel' | 'key'>): UpstreamRequest[];
  /** Throws BalanceUnavailableError (shared/balance.ts) when the answers hold no balance. */
  parse(answers: Array<{ statusCode: number; data: unknown }>): number;
}

/**
 * One step of a polled answer (`passthrough.follow`): the upstream's 2xx answer was final, or the
 * relay must ask again (an async job it polls within the request: DashScope's image tasks).
 */
export type PolledStep =
  /** Final. `answer` is what the operation reads in place of the JSON just received, when that JSON is not yet the client's shape. */
  | { done: true; answer?: unknown }
  /** Not yet: send `next` (authorized and guarded like every call) `afterMs` from now, and ask again with its answer. */
  | { done: false; next: UpstreamRequest; afterMs: number };

/** An upstream error answer, normalised. */
export interface ProviderError {
  message: string;
  type: string;
  code: string;
}

/** What an upstream speaking OpenAI's protocol serves: chat, and the rest through its passthrough. */
export const OPENAI_FORMAT_OPERATIONS: readonly OperationName[] = ['chat', 'completions', 'embeddings', 'moderations'];

export interface ProviderDefinition {
  /** Stable name, for logs and fixtures. */
  id: string;
  /** The operations it serves (its capabilities): routing tries its channels for these only. */
  operations: readonly OperationName[];
  /** Whether the upstream honours `stream_options.include_usage` (the relay injects it then). */
  streamUsage: boolean;
  /** OpenAI chat to and from its protocol: present exactly when `operations` lists 'chat' (Jina's embeddings and rerank have none). */
  chat?: {
    request(body: Record<string, unknown>, context: ProviderContext): UpstreamRequest;
    /**
     * A whole answer to OpenAI's format. Absent: the upstream only streams (Spark's socket, Coze,
     * whose blocking mode needs polling), `request` always asks for a stream, and a whole answer
     * is that stream run through `stream` and folded (shared/stream-fold.ts).
     */
    response?(json: unknown, context: ProviderContext): ChatResult;
    stream(context: ProviderContext): StreamConverter;
  };
  /**
   * The OpenAI-format operations it lists besides chat, forwarded as the client sent them but for
   * the model; `path` is the client's (`/v1/embeddings`).
   */
  passthrough?: {
    request(path: string, body: Record<string, unknown>, context: ProviderContext): UpstreamRequest;
    /** The same call with a multipart form (uploads); the operation has put the upstream model in it. Needed by providers that list an upload operation. */
    form?(path: string, form: FormData, context: ProviderContext): UpstreamRequest;
    /** A GET of the upstream's own path (a stored Responses answer), no body. Needed by providers that list 'responses'. */
    get?(path: string, context: ProviderContext): UpstreamRequest;
    /** Usage of a passthrough answer, when present. */
    usage(json: unknown): Usage | null;
    /**
     * The upstream answers Responses only as a stream (Codex): `request` always asks for one, and
     * a whole answer for a client that did not is the response its terminal event carries.
     */
    streamsOnly?: true;
    /**
     * The answer in OpenAI's shape (Jina's for rerank), for upstreams whose own is not: Cohere's
     * embed and rerank. Absent: the answer goes to the client as the upstream sent it.
     */
    answer?(path: string, json: unknown, requestBody: Record<string, unknown>, context: ProviderContext): { body: unknown; usage: Usage | null };
    /**
     * For upstreams that answer some calls with a pending job instead of the result (DashScope
     * runs its image generations only as async tasks): the relay (polled-answer.ts) hands every
     * 2xx whole answer of the provider here, with the operation it serves and how many follow-up
     * calls were already sent, and sends the `next` call this asks for until a step is `done`, all
     * within the answer deadline (UPSTREAM_ANSWER_TIMEOUT_MS: past it, 504). Only the final answer
     * reaches the operation, so it is priced and recorded once. A job that failed throws an
     * UpstreamAnswerError: the channel's failure, nothing charged. Absent: every answer is final.
     */
    follow?(operation: OperationName, json: unknown, context: ProviderContext, sent: number): PolledStep;
  };
  /**
   * Anthropic's Messages API, spoken natively: a `/v1/messages` body goes upstream unchanged but
   * for the model (cache_control, thinking and tools survive), the answer comes back unchanged.
   */
  messages?: {
    /** Whether the model is spoken to natively (Bedrock: Anthropic's models only; others are converted to chat). Absent: all are. */
    serves?(context: ProviderContext): boolean;
    request(body: Record<string, unknown>, context: ProviderContext): UpstreamRequest;
  };
  /**
   * Gemini's own API, spoken natively: a `/v1beta/models/{model}:{method}` body goes upstream
   * unchanged (safety settings, thinking config and tools survive) to the same method of the
   * upstream model; a stream is asked for as SSE.
   */
  gemini?: {
    /** Whether the model is spoken to natively (Vertex AI: Gemini models only; others are converted to chat). Absent: all are. */
    serves?(context: ProviderContext): boolean;
    request(method: GeminiMethod, body: Record<string, unknown>, context: ProviderContext): UpstreamRequest;
  };
  /**
   * OpenAI's Realtime API (a WebSocket): where to open the upstream socket for the model and with
   * which headers (the channel key goes in a header, never in the URL).
   */
  realtime?: {
    connect(context: ProviderContext): { url: string; headers: Record<string, string> };
  };
  /** The upstream's balance, for channels' "update balance" (where the provider has one). */
  balance?: BalanceQuery;
  /** The upstream's model list, for "fetch models" and channel tests. */
  models?: {
    request(context: Omit<ProviderContext, 'upstreamModel' | 'requestedModel' | 'stream'>): UpstreamRequest;
    parse(json: unknown): string[];
  };
  /**
   * Signs or authenticates a built request, when the key cannot simply go in a header: request
   * signatures (AWS SigV4, Tencent TC3) or access tokens from an exchange (Vertex AI, Baidu).
   * Applied by the relay to every call it sends for the provider, after the request was built.
   */
  authorize?(request: UpstreamRequest, context: Pick<ProviderContext, 'channel' | 'key'>, tools: AuthorizeTools): Promise<UpstreamRequest>;
  /** The stream framing of its streamed answers, when not SSE: a new framer per stream. */
  framing?(): EventFramer;
  /** Maps an upstream error body to our error; `retryable` is decided by the relay from the status. */
  error(status: number, bodyText: string): ProviderError;
}

/** A provider that serves chat (most do) and converts whole answers: its `chat` and `chat.response` are there, for code that holds one by name. */
export type ChatProviderDefinition = ProviderDefinition & { chat: Required<NonNullable<ProviderDefinition['chat']>> };

/** The chat adapter of a provider routing chose for chat (it lists 'chat' exactly when it has one: registry.test.ts). */
export function chatOf(provider: ProviderDefinition): NonNullable<ProviderDefinition['chat']> {
  if (!provider.chat) throw new Error(`provider ${provider.id} serves no chat`);
  return provider.chat;
}
