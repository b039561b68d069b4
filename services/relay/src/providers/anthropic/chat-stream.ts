import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { anthropicUsageSchema, finishReasonFromAnthropic, usageFromAnthropic, type AnthropicUsage } from './chat.js';

const eventSchema = z.object({
  type: z.string(),
  index: z.number().nullish(),
  message: z.object({ id: z.string().nullish(), model: z.string().nullish(), usage: anthropicUsageSchema.nullish() }).nullish(),
  content_block: z.object({ type: z.string(), id: z.string().nullish(), name: z.string().nullish(), text: z.string().nullish() }).nullish(),
  delta: z
    .object({
      type: z.string().nullish(),
      text: z.string().nullish(),
      partial_json: z.string().nullish(),
      thinking: z.string().nullish(),
      stop_reason: z.string().nullish(),
    })
    .nullish(),
  usage: anthropicUsageSchema.nullish(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
type AnthropicEvent = z.infer<typeof eventSchema>;

/**
 * Messages API stream -> OpenAI chunks, event by event (nothing is held back):
 * message_start -> the role chunk; text, thinking and tool-input deltas -> content,
 * reasoning_content and tool_calls deltas (tool calls numbered in order of appearance);
 * message_delta -> the finish chunk, then the usage-only chunk; `error` -> a stream error.
 * ping, content_block_stop and message_stop produce nothing.
 */
export class AnthropicStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  /** Usage from message_start (input and cache counts); message_delta brings the output count. */
  private startUsage: AnthropicUsage = {};
  /** Content block index -> OpenAI tool call index. */
  private readonly toolIndexes = new Map<number, number>();

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-anthropic', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    const parsed = eventSchema.safeParse(parseJson(event.data));
    if (!parsed.success) {
      return [{ error: { message: 'Anthropic sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    }
    const data = parsed.data;
    switch (data.type) {
      case 'message_start':
        return this.start(data);
      case 'content_block_start':
        return this.blockStart(data);
      case 'content_block_delta':
        return this.blockDelta(data);
      case 'message_delta':
        return this.messageDelta(data);
      case 'error':
        return [
          {
            error: {
              message: data.error?.message ?? 'Anthropic reported a stream error',
              type: data.error?.type ?? 'upstream_error',
              code: data.error?.type ?? 'stream_error',
            },
          },
        ];
      default: // ping, content_block_stop, message_stop, and event types added later
        return [];
    }
  }

  onEnd(): StreamOutput[] {
    return [];
  }

  private start(data: AnthropicEvent): StreamOutput[] {
    if (data.message?.id) this.writer.id = data.message.id;
    if (data.message?.model) this.writer.model = data.message.model;
    this.startUsage = data.message?.usage ?? {};
    return [this.writer.delta({ role: 'assistant', content: '' })];
  }

  private blockStart(data: AnthropicEvent): StreamOutput[] {
    const block = data.content_block;
    if (block?.type === 'tool_use' && data.index != null) {
      const index = this.toolIndexes.size;
      this.toolIndexes.set(data.index, index);
      const call = { index, id: block.id ?? `call_${index}`, type: 'function', function: { name: block.name ?? '', arguments: '' } };
      return [this.writer.delta({ tool_calls: [call] })];
    }
    if (block?.type === 'text' && block.text) return [this.writer.delta({ content: block.text }, block.text)];
    return [];
  }

  private blockDelta(data: AnthropicEvent): StreamOutput[] {
    const delta = data.delta;
    if (delta?.type === 'text_delta' && delta.text) return [this.writer.delta({ content: delta.text }, delta.text)];
    if (delta?.type === 'thinking_delta' && delta.thinking) return [this.writer.delta({ reasoning_content: delta.thinking }, delta.thinking)];
    if (delta?.type === 'input_json_delta' && delta.partial_json && data.index != null) {
      const index = this.toolIndexes.get(data.index);
      if (index === undefined) return [];
      return [this.writer.delta({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] }, delta.partial_json)];
    }
    return []; // signature_delta and empty deltas
  }

  private messageDelta(data: AnthropicEvent): StreamOutput[] {
    const outputs: StreamOutput[] = [];
    const reason = finishReasonFromAnthropic(data.delta?.stop_reason);
    if (reason) outputs.push(this.writer.finish(reason));
    // message_delta's usage is cumulative; newer API versions repeat the input counts there too.
    const usage = { ...this.startUsage, ...withoutNulls(data.usage ?? {}) };
    outputs.push(this.writer.usage(usageFromAnthropic(usage)));
    return outputs;
  }
}

function withoutNulls(usage: AnthropicUsage): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value != null));
}
