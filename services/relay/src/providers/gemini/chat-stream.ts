import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput, Usage } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { finishReasonFromGemini, generateContentSchema, toolCallFromGemini, usageFromGemini } from './chat.js';

const streamErrorSchema = z.object({ error: z.object({ message: z.string(), status: z.string().nullish(), code: z.number().nullish() }) });

/**
 * `streamGenerateContent?alt=sse` -> OpenAI chunks. Each Gemini event is a small
 * GenerateContentResponse: its text parts become content deltas (thought parts reasoning_content),
 * function calls arrive whole and become one tool_calls delta each, a finishReason becomes the
 * finish chunk. usageMetadata is cumulative and may come on any event, so the usage-only chunk
 * is written when the stream ends, from the last report, and only if the answer finished.
 */
export class GeminiStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private started = false;
  private finished = false;
  private toolCalls = 0;
  private usage: Usage | null = null;

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-gemini', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    const json = parseJson(event.data);
    const failure = streamErrorSchema.safeParse(json);
    if (failure.success) {
      const { message, status, code } = failure.data.error;
      return [{ error: { message, type: status ?? 'upstream_error', code: String(code ?? status ?? 'stream_error') } }];
    }
    const parsed = generateContentSchema.safeParse(json);
    if (!parsed.success) {
      return [{ error: { message: 'Gemini sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    }
    const response = parsed.data;
    const outputs: StreamOutput[] = [];
    if (!this.started) {
      this.started = true;
      if (response.responseId) this.writer.id = response.responseId;
      if (response.modelVersion) this.writer.model = response.modelVersion;
      outputs.push(this.writer.delta({ role: 'assistant', content: '' }));
    }
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        const call = toolCallFromGemini(part.functionCall, this.toolCalls);
        outputs.push(this.writer.delta({ tool_calls: [{ index: this.toolCalls, ...call }] }, call.function.arguments));
        this.toolCalls++;
      } else if (part.text) {
        outputs.push(this.writer.delta(part.thought ? { reasoning_content: part.text } : { content: part.text }, part.text));
      }
    }
    if (response.usageMetadata) this.usage = usageFromGemini(response.usageMetadata);
    const reason = candidate
      ? finishReasonFromGemini(candidate.finishReason, this.toolCalls > 0)
      : response.promptFeedback?.blockReason
        ? 'content_filter'
        : null;
    if (reason && !this.finished) {
      this.finished = true;
      outputs.push(this.writer.finish(reason));
    }
    return outputs;
  }

  onEnd(): StreamOutput[] {
    return this.finished && this.usage ? [this.writer.usage(this.usage)] : [];
  }
}
