import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { finishReasonFromHunyuan, hunyuanAnswerSchema, usageFromHunyuan } from './chat.js';
import { TencentAnswerError } from './error.js';

const streamEventSchema = hunyuanAnswerSchema.extend({ Response: z.object({ Error: hunyuanAnswerSchema.shape.Error }).nullish() });

/**
 * Hunyuan stream events (`{Choices: [{Delta: {Role, Content}, FinishReason}], Usage, Id}`, each
 * with the usage so far) -> OpenAI chunks: the delta's content (the first with the role); the
 * event with a FinishReason ends the answer with the finish chunk and the usage-only chunk. An
 * `Error` (or the `{Response: {Error}}` body in place of a stream) is a stream error.
 */
export class TencentStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private started = false;

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-tencent', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    const parsed = streamEventSchema.safeParse(parseJson(event.data));
    if (!parsed.success) {
      return [{ error: { message: 'Tencent sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    }
    const data = parsed.data;
    const error = data.Error ?? data.Response?.Error;
    if (error) return [{ error: new TencentAnswerError(error.Code, error.Message).error }];
    if (data.Id) this.writer.id = data.Id;
    const outputs: StreamOutput[] = [];
    const choice = data.Choices?.[0];
    const text = choice?.Delta?.Content ?? '';
    if (text !== '') {
      outputs.push(this.writer.delta(this.started ? { content: text } : { role: 'assistant', content: text }, text));
      this.started = true;
    }
    const reason = finishReasonFromHunyuan(choice?.FinishReason);
    if (reason) {
      outputs.push(this.writer.finish(reason));
      const usage = usageFromHunyuan(data.Usage);
      if (usage) outputs.push(this.writer.usage(usage));
    }
    return outputs;
  }

  onEnd(): StreamOutput[] {
    return [];
  }
}
