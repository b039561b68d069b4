import type { StreamOutput, Usage } from '../types.js';
import { openAiUsageBody } from './usage.js';

/**
 * Builders of OpenAI chat answers for the converting providers (Anthropic, Gemini), so both
 * produce exactly the shape clients parse.
 */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ToolCallOutput {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface CompletionParts {
  id: string;
  model: string;
  content: string;
  reasoning: string;
  toolCalls: ToolCallOutput[];
  finishReason: FinishReason | null;
  usage: Usage | null;
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A `chat.completion` body. */
export function chatCompletion(parts: CompletionParts): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: parts.content === '' && parts.toolCalls.length > 0 ? null : parts.content };
  if (parts.reasoning !== '') message.reasoning_content = parts.reasoning;
  if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
  const body: Record<string, unknown> = {
    id: parts.id,
    object: 'chat.completion',
    created: unixSeconds(),
    model: parts.model,
    choices: [{ index: 0, message, finish_reason: parts.finishReason }],
  };
  if (parts.usage) body.usage = openAiUsageBody(parts.usage);
  return body;
}

/** Writes the `chat.completion.chunk`s of one converted stream (same id, model and created on each). */
export class ChunkWriter {
  readonly created = unixSeconds();
  constructor(
    public id: string,
    public model: string,
  ) {}

  /** A chunk with one choice; `text` is what it adds to the completion (for counting). */
  delta(delta: Record<string, unknown>, text?: string): StreamOutput {
    const data = JSON.stringify(this.envelope([{ index: 0, delta, finish_reason: null }]));
    return text ? { data, text } : { data };
  }

  finish(reason: FinishReason): StreamOutput {
    return { data: JSON.stringify(this.envelope([{ index: 0, delta: {}, finish_reason: reason }])) };
  }

  /** The usage-only chunk of `stream_options.include_usage` (empty choices). */
  usage(usage: Usage): StreamOutput {
    return { data: JSON.stringify(Object.assign(this.envelope([]), { usage: openAiUsageBody(usage) })), usage, usageOnly: true };
  }

  private envelope(choices: unknown[]) {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices };
  }
}
