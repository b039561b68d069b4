import type { EventFramer, ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { DEFAULT_MAX_SSE_LINE_LENGTH, SseLineTooLongError, SseParser } from '../../sse/sse-parser.js';
import { baiduAnswerSchema, finishReasonFromBaidu, usageFromBaidu } from './chat.js';
import { baiduError } from './error.js';

/**
 * ERNIE's stream answers: server-sent events, or, when Baidu refuses the call (a bad token, a
 * limit), its JSON error object with status 200 instead of a stream. The relay's SSE parser would
 * see nothing in the latter, and the client an empty answer: this framer passes such a body on
 * as one event when it ends, so the converter reports the error.
 */
export class BaiduEventFramer implements EventFramer {
  private readonly sse = new SseParser();
  private mode: 'unknown' | 'events' | 'body' = 'unknown';
  private readonly held: Uint8Array[] = [];
  private body = '';
  private readonly decoder = new TextDecoder('utf-8');

  push(chunk: Uint8Array): StreamEvent[] {
    if (this.mode !== 'unknown') return this.take(chunk);
    const first = chunk.find((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d);
    if (first === undefined) {
      this.held.push(chunk);
      return [];
    }
    this.mode = first === 0x7b ? 'body' : 'events';
    return [...this.held.splice(0), chunk].flatMap((piece) => this.take(piece));
  }

  end(): StreamEvent[] {
    if (this.mode !== 'body') return this.sse.end();
    this.body += this.decoder.decode();
    return [{ data: this.body }];
  }

  private take(chunk: Uint8Array): StreamEvent[] {
    if (this.mode === 'events') return this.sse.push(chunk);
    this.body += this.decoder.decode(chunk, { stream: true });
    if (this.body.length > DEFAULT_MAX_SSE_LINE_LENGTH) throw new SseLineTooLongError(DEFAULT_MAX_SSE_LINE_LENGTH);
    return [];
  }
}

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
