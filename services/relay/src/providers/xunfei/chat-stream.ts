import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput, Usage } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { sparkFrameError } from './error.js';

/** Spark marks the last message of an answer with status 2 (0 the first, 1 those between). */
const LAST = 2;

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));

/** A function's arguments are JSON text; an object is taken too, written back as text. */
const argumentsSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .nullish()
  .transform((value) => (typeof value === 'string' ? value : value ? JSON.stringify(value) : '{}'));

const textItemSchema = z.object({
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  function_call: z.object({ name: z.string(), arguments: argumentsSchema }).nullish(),
});

/** One message of a Spark answer, leniently (style rule 12). */
const frameSchema = z.object({
  header: z.object({ code: z.coerce.number(), message: z.string().nullish(), sid: z.string().nullish(), status: z.number().nullish() }),
  payload: z
    .object({
      choices: z.object({ status: z.number().nullish(), text: z.array(textItemSchema).nullish() }).nullish(),
      usage: z.object({ text: z.object({ prompt_tokens: count, completion_tokens: count }).nullish() }).nullish(),
    })
    .nullish(),
});

/**
 * Spark's answer messages (one server-sent event each, upstream-socket.ts) -> OpenAI chunks:
 * each text item's `content` (the first with the role), `reasoning_content`, and `function_call`
 * as a tool call; the message with status 2 ends the answer with the finish chunk (`tool_calls`
 * when it called a function) and, from its `usage.text`, the usage-only chunk. The chunks' id is
 * the session's `sid`. A `header.code` other than 0 is a stream error with the status it stands
 * for; so is a socket Spark closed before the last message, which would otherwise pass for a
 * whole answer.
 */
export class SparkStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private started = false;
  private calls = 0;
  private ended = false;

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-xunfei', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    if (this.ended) return [];
    const parsed = frameSchema.safeParse(parseJson(event.data));
    if (!parsed.success) {
      this.ended = true;
      return [
        { error: { message: 'iFlytek Spark sent a message that is not its answer JSON', type: 'upstream_error', code: 'bad_stream_event', status: 502 } },
      ];
    }
    const { header, payload } = parsed.data;
    if (header.code !== 0) {
      this.ended = true;
      return [{ error: sparkFrameError(header.code, header.message) }];
    }
    if (header.sid) this.writer.id = header.sid;
    const outputs: StreamOutput[] = [];
    for (const item of payload?.choices?.text ?? []) outputs.push(...this.item(item));
    if (header.status === LAST || payload?.choices?.status === LAST) {
      this.ended = true;
      outputs.push(this.writer.finish(this.calls > 0 ? 'tool_calls' : 'stop'));
      const usage = usageOf(payload?.usage?.text);
      if (usage) outputs.push(this.writer.usage(usage));
    }
    return outputs;
  }

  onEnd(): StreamOutput[] {
    if (this.ended) return [];
    this.ended = true;
    return [{ error: { message: 'iFlytek Spark closed the socket before the answer ended', type: 'upstream_error', code: 'stream_incomplete', status: 502 } }];
  }

  private item(item: z.infer<typeof textItemSchema>): StreamOutput[] {
    const outputs: StreamOutput[] = [];
    if (item.reasoning_content) outputs.push(this.delta({ reasoning_content: item.reasoning_content }, item.reasoning_content));
    if (item.content) outputs.push(this.delta({ content: item.content }, item.content));
    if (item.function_call) {
      const { name, arguments: args } = item.function_call;
      const index = this.calls++;
      const call = { index, id: `call_${this.writer.id}_${index}`, type: 'function', function: { name, arguments: args } };
      outputs.push(this.delta({ tool_calls: [call] }, args));
    }
    return outputs;
  }

  /** A delta chunk, the first of the answer with the assistant's role. */
  private delta(delta: Record<string, unknown>, text: string): StreamOutput {
    const output = this.writer.delta(this.started ? delta : { role: 'assistant', ...delta }, text);
    this.started = true;
    return output;
  }
}

function usageOf(usage: { prompt_tokens: number; completion_tokens: number } | null | undefined): Usage | null {
  return usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cached_tokens: 0 } : null;
}
