import type { ProviderContext, ProviderDefinition, ProviderError, StreamEvent, UpstreamRequest, Usage } from '../providers/types.js';
import type { RequestBounds } from '../request-bounds.js';
import type { PriceQuote } from '../metering.js';

/**
 * The operations the relay serves (docs/architecture.md section 5). Each inbound API is one
 * module in this folder declaring what the pipeline needs of it; relay-call.ts runs every one the
 * same way and names none. A provider serves an operation when its definition lists it
 * (`ProviderDefinition.operations`): routing considers only channels whose provider does.
 */
export type OperationName =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'moderations'
  | 'rerank'
  | 'images'
  | 'image-edits'
  | 'image-variations'
  | 'audio-speech'
  | 'audio-transcriptions'
  | 'audio-translations'
  | 'responses'
  | 'realtime'
  /** The task platforms (tasks/): served by their channel types only. */
  | 'midjourney'
  | 'suno';

/** What the pipeline reads from a request before anything is held. */
export interface Inspected {
  /** The model asked for (trimmed). */
  model: string;
  stream: boolean;
  /** The multipliers of the hold, checked (400 naming the field when out of range). */
  bounds: RequestBounds;
}

/** One upstream attempt: the channel's provider and what it needs to know. */
export interface Attempt {
  provider: ProviderDefinition;
  context: ProviderContext;
}

/** A whole upstream answer, as received. */
export interface UpstreamAnswer {
  text: string;
  /** The upstream's content-type header ('' when it sent none). */
  contentType: string;
  /** The text as JSON (parsed once); a 502 when it is not JSON. */
  json(): unknown;
}

/** What a whole answer becomes. */
export interface Answer {
  /**
   * The body for the client: the object `json()` returned when it goes out unchanged (the
   * pipeline then sends the bytes it received), another object (sent as JSON), or text sent with
   * `contentType`.
   */
  body: unknown;
  /** For text bodies; JSON otherwise. */
  contentType?: string;
  usage: Usage | null;
  /** Completion tokens counted locally when `usage` is null. */
  estimatedCompletion: number;
  /** `usage` was counted here from the answer (a transcript's text), not reported by the upstream: the log says so. */
  counted?: boolean;
  /** The id of an object the upstream stored (a response), remembered for its later retrieval. */
  objectId?: string;
}

/** One piece of a streamed answer for the client. */
export interface StreamPiece {
  /** Text written to the client as it is (whole SSE frames, or JSON array parts). */
  write?: string;
  /** Completion text this piece carried (counted when the upstream reports no usage). */
  text?: string;
  /** Usage, when the upstream reported it (the last report wins). */
  usage?: Usage;
  /** The upstream reported an error inside the stream. */
  error?: ProviderError;
  /** The id of an object the upstream stores (a response), remembered for its later retrieval. */
  objectId?: string;
}

/**
 * A streamed answer as the client receives it: the upstream's SSE events in, the client's frames
 * out (OpenAI chunks, Anthropic or Responses events, a Gemini SSE or JSON-array stream). One
 * instance per request.
 */
export interface ClientStream {
  /** The answer's content-type. */
  contentType: string;
  onEvent(event: StreamEvent): StreamPiece[];
  /** The upstream stream ended normally. */
  onEnd(): StreamPiece[];
  /** The frame that reports an error to the client mid-stream. */
  errorFrame(error: ProviderError): string;
  /**
   * What closes the stream: `partial` says why it ended early (null when it ended well).
   * `completionTokens` counts the answer (a tokenizer pass): called only by a format that reports
   * usage to its client when the upstream sent none.
   */
  close(partial: string | null, completionTokens: () => number): string;
}

/** How a byte answer (speech audio) was delivered, for its usage. */
export interface Delivered {
  bytes: number;
  /** The upstream's content-length, when it gave one. */
  total: number | null;
  /** Every byte reached the client. */
  complete: boolean;
}

export interface OperationDefinition {
  name: OperationName;
  /** Words for messages: "no channel can serve <label> for model ...". */
  label: string;
  /**
   * The provider operation routing looks for ('chat' for Anthropic's and Gemini's native APIs:
   * every chat provider serves them, natively or converted).
   */
  capability: OperationName;
  /** Client headers passed to the provider (`ProviderContext.forwarded`), lower-case. */
  forwardHeaders?: readonly string[];
  /** Checks what the pipeline relies on; throws a RelayError (400, naming the field) otherwise. */
  inspect(body: Record<string, unknown>): Inspected;
  /**
   * Prompt tokens counted locally (a tokenizer pass, for most operations): the usage when the
   * upstream reports none, counted only then, after the answer (relay-call.ts, `PromptTokens`).
   */
  estimatePrompt(body: Record<string, unknown>, model: string): number;
  /**
   * At least `estimatePrompt` for every body, known without a tokenizer pass (a text's UTF-8 bytes
   * bound its tokens): what the hold and the usage limits take before the upstream call.
   * test/tokenizer/prompt-bound.test.ts holds every operation to bound >= count.
   */
  boundPrompt(body: Record<string, unknown>, model: string): number;
  /**
   * The request's price when it is not the model's plain price: images multiply a per-image
   * price by size, quality and count. Absent: the model's price as quoted.
   */
  price?(quote: PriceQuote, body: Record<string, unknown>, model: string): PriceQuote;
  /** The upstream call; `injectedUsage` when the relay asked a stream for usage the client did not. */
  upstream(attempt: Attempt, body: Record<string, unknown>): { request: UpstreamRequest; injectedUsage: boolean };
  /** A whole answer: the client's body and the usage (every operation but those with `bytes`). */
  answer?(attempt: Attempt, upstream: UpstreamAnswer, body: Record<string, unknown>): Answer;
  /**
   * A streamed answer, for the operations whose `inspect` may say `stream` (the others never
   * stream). `promptTokens` is the exact count, made on the first call (a tokenizer pass): call it
   * only for what the client is told, and only when the upstream's usage does not say it.
   */
  stream?(attempt: Attempt, options: { injectedUsage: boolean; promptTokens: () => number; body: Record<string, unknown> }): ClientStream;
  /**
   * Present when the answer is bytes passed through as they come (speech audio): the usage of
   * what was delivered. Such an operation has no `answer`.
   */
  bytes?(body: Record<string, unknown>, promptTokens: number, delivered: Delivered): Usage | null;
}
