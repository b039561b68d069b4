import { z } from 'zod';
import type { EventFramer, ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { DEFAULT_MAX_SSE_LINE_LENGTH, SseLineTooLongError, SseParser } from '../../sse/sse-parser.js';
import { finishReasonFromHunyuan, hunyuanAnswerSchema, usageFromHunyuan } from './chat.js';
import { TencentAnswerError } from './error.js';

/**
 * Hunyuan's stream answers: server-sent events, or, when Tencent refuses the call (a signature it
 * does not accept, a limit), its `{Response: {Error}}` JSON with status 200 instead of a stream.
 * The relay's SSE parser would see nothing in the latter, and the client an empty answer: this
 * framer passes such a body on as one event when it ends, so the converter reports the error.
 */
export class TencentEventFramer implements EventFramer {
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
