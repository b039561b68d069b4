import type { ProviderContext, ProviderDefinition, UpstreamRequest, Usage } from '../providers/types.js';
import type { RequestBounds } from '../request-bounds.js';

/**
 * The operations the relay serves (docs/architecture.md section 5). Each inbound API is one
 * module in this folder declaring what the pipeline needs of it; relay-call.ts runs every one the
 * same way and names none. A provider serves an operation when its definition lists it
 * (`ProviderDefinition.operations`): routing considers only channels whose provider does.
 */
export type OperationName = 'chat' | 'completions' | 'embeddings' | 'moderations' | 'rerank';

/** The format the client gets its answer in: OpenAI's (as the pipeline speaks it) or Anthropic's Messages API. */
export type OutputFormat = 'openai' | 'anthropic';

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

export interface OperationDefinition {
  name: OperationName;
  /** Words for messages: "no channel can serve <label> for model ...". */
  label: string;
  /** The provider operation this needs (Anthropic's Messages API is served by any chat provider, converted). */
  capability: OperationName;
  /** The answer's format for the client. */
  output: OutputFormat;
  /** Checks what the pipeline relies on; throws a RelayError (400, naming the field) otherwise. */
  inspect(body: Record<string, unknown>): Inspected;
  /** Prompt tokens counted locally: for the hold, and when the upstream reports no usage. */
  estimatePrompt(body: Record<string, unknown>, model: string): number;
  /** The upstream call; `injectedUsage` when the relay asked a stream for usage the client did not. */
  upstream(attempt: Attempt, body: Record<string, unknown>): { request: UpstreamRequest; injectedUsage: boolean };
  /**
   * A whole answer: the body for the client (the upstream's own object when it goes out
   * unchanged, so the pipeline sends the bytes it received), the usage if reported, and
   * otherwise the completion tokens counted locally.
   */
  answer(attempt: Attempt, json: unknown): { body: unknown; usage: Usage | null; estimatedCompletion: number };
}
