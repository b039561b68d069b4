import { z } from 'zod';
import type { EventFramer, ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { DEFAULT_MAX_SSE_LINE_LENGTH, SseLineTooLongError } from '../../sse/sse-parser.js';
import { usageFromZhipu, zhipuUsageSchema } from './chat.js';
import { zhipuError } from './error.js';

/**
 * Zhipu v3's `sse-invoke` stream: server-sent events named `add` (new text), `finish`, `error` and
 * `interrupted`, whose `data` is plain text, not JSON; the `finish` event has one more field,
 * `meta`, a JSON object with the usage. Standard SSE parsers drop unknown fields, so this framer
 * reads the lines itself: each event as `{event, data}` (a multi-line data joined by newlines, as
 * SSE does), its `meta` as a following `{event: 'meta', data}`. A refused call can answer one JSON
 * object instead of a stream: it comes as `{event: 'body', data}` when the answer ends. Lines
 * and the collected body are capped like the relay's own SSE parser.
 */
export class ZhipuEventFramer implements EventFramer {
  private readonly decoder = new TextDecoder('utf-8');
  private mode: 'unknown' | 'events' | 'body' = 'unknown';
  private partial = '';
  private afterCarriageReturn = false;
  private name: string | undefined;
  private data: string[] = [];
  private dataLength = 0;
  private meta: string | undefined;
  private body = '';

  push(chunk: Uint8Array): StreamEvent[] {
    let text = this.decoder.decode(chunk, { stream: true });
    if (text === '') return [];
    if (this.afterCarriageReturn) {
      this.afterCarriageReturn = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    if (this.mode === 'unknown') {
      const start = (this.partial + text).trimStart();
      if (start === '') {
        this.partial += text;
        return [];
      }
      this.mode = start.startsWith('{') ? 'body' : 'events';
    }
    if (this.mode === 'body') {
      this.collect(this.partial + text);
      this.partial = '';
      return [];
    }
    this.afterCarriageReturn = text.endsWith('\r');
    const lines = (this.partial + text).replace(/\r\n?/g, '\n').split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > DEFAULT_MAX_SSE_LINE_LENGTH) throw new SseLineTooLongError(DEFAULT_MAX_SSE_LINE_LENGTH);
    const events: StreamEvent[] = [];
    for (const line of lines) this.takeLine(line, events);
    return events;
  }

  end(): StreamEvent[] {
    const rest = this.partial + this.decoder.decode();
    this.partial = '';
    if (this.mode === 'body' || (this.mode === 'unknown' && rest.trimStart().startsWith('{'))) {
      this.collect(rest);
      return this.body.trim() === '' ? [] : [{ event: 'body', data: this.body }];
    }
    const events: StreamEvent[] = [];
    if (rest !== '') this.takeLine(rest, events);
    this.dispatch(events);
    return events;
  }

  private collect(text: string): void {
    if (this.body.length + text.length > DEFAULT_MAX_SSE_LINE_LENGTH) throw new SseLineTooLongError(DEFAULT_MAX_SSE_LINE_LENGTH);
    this.body += text;
  }

  private takeLine(line: string, events: StreamEvent[]): void {
    if (line.length > DEFAULT_MAX_SSE_LINE_LENGTH) throw new SseLineTooLongError(DEFAULT_MAX_SSE_LINE_LENGTH);
    if (line === '') return this.dispatch(events);
    if (line.startsWith(':')) return; // a comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.name = value;
    else if (field === 'meta') this.meta = value;
    else if (field === 'data') {
      this.dataLength += value.length + 1;
      if (this.dataLength > DEFAULT_MAX_SSE_LINE_LENGTH) throw new SseLineTooLongError(DEFAULT_MAX_SSE_LINE_LENGTH);
      this.data.push(value);
    }
  }

  private dispatch(events: StreamEvent[]): void {
    if (this.data.length > 0 || (this.meta !== undefined && this.name !== undefined)) events.push({ event: this.name ?? 'add', data: this.data.join('\n') });
    if (this.meta !== undefined) events.push({ event: 'meta', data: this.meta });
    this.name = undefined;
    this.data = [];
    this.dataLength = 0;
    this.meta = undefined;
  }
}

const metaSchema = z.object({ task_status: z.string().nullish(), usage: zhipuUsageSchema.nullish() });

/**
 * Zhipu v3 stream events -> OpenAI chunks: `add` -> content (the first with the role); `finish`
 * -> its text if any, then the finish chunk; `interrupted` (Zhipu stopped the answer, unsafe
 * content) -> its text if any, then finish_reason content_filter; `meta` -> the usage-only chunk;
 * `error` -> a stream error, as is an answer that came as one JSON error object.
 */
export class ZhipuStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private started = false;

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-zhipu', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    switch (event.event) {
      case 'add':
        return this.text(event.data);
      case 'finish':
        return [...this.text(event.data), this.writer.finish('stop')];
      case 'interrupted':
        return [...this.text(event.data), this.writer.finish('content_filter')];
      case 'meta':
        return this.meta(event.data);
      case 'error':
        return [{ error: { message: event.data || 'Zhipu reported an error in the stream', type: 'upstream_error', code: 'stream_error' } }];
      case 'body':
        return [{ error: zhipuError(200, event.data) }];
      default:
        return [];
    }
  }

  onEnd(): StreamOutput[] {
    return [];
  }

  private text(text: string): StreamOutput[] {
    if (text === '') return [];
    const delta = this.started ? { content: text } : { role: 'assistant', content: text };
    this.started = true;
    return [this.writer.delta(delta, text)];
  }

  private meta(data: string): StreamOutput[] {
    const meta = metaSchema.safeParse(parseJson(data));
    if (!meta.success) return [{ error: { message: 'Zhipu sent stream metadata that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    if (meta.data.task_status === 'FAIL') return [{ error: { message: 'the Zhipu task failed', type: 'server_error', code: 'task_failed' } }];
    const usage = usageFromZhipu(meta.data.usage);
    return usage ? [this.writer.usage(usage)] : [];
  }
}
