import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { cohereUsageSchema, finishReasonFromCohere, usageFromCohere } from './chat.js';

const eventSchema = z.object({
  type: z.string(),
  id: z.string().nullish(),
  index: z.number().nullish(),
  delta: z
    .object({
      // An object in content and tool-call events, arrays in message-start: read per event below.
      message: z.object({ content: z.unknown().optional(), tool_plan: z.string().nullish(), tool_calls: z.unknown().optional() }).nullish(),
      finish_reason: z.string().nullish(),
      usage: cohereUsageSchema.nullish(),
      error: z.string().nullish(),
    })
    .nullish(),
});
type CohereEvent = z.infer<typeof eventSchema>;

const contentDeltaSchema = z.object({ text: z.string().nullish(), thinking: z.string().nullish() });
const toolCallDeltaSchema = z.object({
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

/**
 * Cohere's v2 chat stream -> OpenAI chunks, event by event (each SSE event's JSON names its
 * `type`): message-start -> the role chunk; content-delta -> content (or reasoning_content for a
 * thinking part); tool-plan-delta -> reasoning_content; tool-call-start and tool-call-delta -> a
 * tool_calls delta (numbered in order of appearance); message-end -> the finish chunk and the
 * usage-only chunk, or a stream error when it carries one. content-start/-end, tool-call-end,
 * citations and debug events produce nothing.
 */
export class CohereStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  /** Cohere's tool call index -> OpenAI tool call index. */
  private readonly toolIndexes = new Map<number, number>();

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-cohere', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    if (event.data === '[DONE]') return [];
    const parsed = eventSchema.safeParse(parseJson(event.data));
    if (!parsed.success) {
      return [{ error: { message: 'Cohere sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    }
    const data = parsed.data;
    switch (data.type) {
      case 'message-start':
        if (data.id) this.writer.id = data.id;
        return [this.writer.delta({ role: 'assistant', content: '' })];
      case 'content-delta':
        return this.contentDelta(data);
      case 'tool-plan-delta': {
        const plan = data.delta?.message?.tool_plan;
        return plan ? [this.writer.delta({ reasoning_content: plan }, plan)] : [];
      }
      case 'tool-call-start':
      case 'tool-call-delta':
        return this.toolCall(data);
      case 'message-end':
        return this.end(data);
      default: // content-start, content-end, tool-call-end, citation-start, citation-end, debug
        return [];
    }
  }

  onEnd(): StreamOutput[] {
    return [];
  }

  private contentDelta(data: CohereEvent): StreamOutput[] {
    const content = contentDeltaSchema.safeParse(data.delta?.message?.content).data;
    if (content?.text) return [this.writer.delta({ content: content.text }, content.text)];
    if (content?.thinking) return [this.writer.delta({ reasoning_content: content.thinking }, content.thinking)];
    return [];
  }

  private toolCall(data: CohereEvent): StreamOutput[] {
    const call = toolCallDeltaSchema.safeParse(data.delta?.message?.tool_calls).data;
    const upstreamIndex = data.index ?? 0;
    if (data.type === 'tool-call-start') {
      const index = this.toolIndexes.size;
      this.toolIndexes.set(upstreamIndex, index);
      const args = call?.function?.arguments ?? '';
      const delta = { index, id: call?.id ?? `call_${index}`, type: 'function', function: { name: call?.function?.name ?? '', arguments: args } };
      return [this.writer.delta({ tool_calls: [delta] }, args || undefined)];
    }
    const index = this.toolIndexes.get(upstreamIndex);
    const args = call?.function?.arguments;
    if (index === undefined || !args) return [];
    return [this.writer.delta({ tool_calls: [{ index, function: { arguments: args } }] }, args)];
  }

  private end(data: CohereEvent): StreamOutput[] {
    if (data.delta?.error) return [{ error: { message: data.delta.error, type: 'upstream_error', code: data.delta.finish_reason ?? 'stream_error' } }];
    const outputs: StreamOutput[] = [];
    const reason = finishReasonFromCohere(data.delta?.finish_reason);
    if (reason) outputs.push(this.writer.finish(reason));
    const usage = usageFromCohere(data.delta?.usage);
    if (usage) outputs.push(this.writer.usage(usage));
    return outputs;
  }
}
