import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { baiduAnswerSchema, finishReasonFromBaidu, usageFromBaidu } from './chat.js';
import { baiduError } from './error.js';

/**
 * ERNIE stream events -> OpenAI chunks: each event's `result` is new text (the first with the
 * role); the event with `is_end` ends the answer with the finish chunk and the usage-only chunk
 * (its usage is the whole answer's). An event with `error_code` (or the JSON error body in place of
 * a stream) is a stream error.
 */
export class BaiduStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private started = false;

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-baidu', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    const parsed = baiduAnswerSchema.safeParse(parseJson(event.data));
    if (!parsed.success) {
      return [{ error: { message: 'Baidu sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    }
    const data = parsed.data;
    if (data.error_code != null && Number(data.error_code) !== 0) return [{ error: baiduError(200, event.data) }];
    if (data.id) this.writer.id = data.id;
    const outputs: StreamOutput[] = [];
    const text = data.result ?? '';
    if (text !== '') {
      outputs.push(this.writer.delta(this.started ? { content: text } : { role: 'assistant', content: text }, text));
      this.started = true;
    }
    if (data.is_end) {
      outputs.push(this.writer.finish(finishReasonFromBaidu(data)));
      const usage = usageFromBaidu(data.usage);
      if (usage) outputs.push(this.writer.usage(usage));
    }
    return outputs;
  }

  onEnd(): StreamOutput[] {
    return [];
  }
}
