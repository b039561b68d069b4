import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput, Usage } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { cozeErrorSchema, cozeFailure } from './error.js';

/** A message of a `conversation.message.*` event (the fields the relay reads). */
const messageSchema = z.object({
  id: z.string().nullish(),
  chat_id: z.string().nullish(),
  role: z.string().nullish(),
  type: z.string().nullish(),
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
});

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));

/** A chat of a `conversation.chat.*` event: its id, its usage when completed, its error when failed. */
const chatSchema = z.object({
  id: z.string().nullish(),
  usage: z.object({ token_count: count, output_count: count, input_count: count }).nullish(),
  last_error: z.object({ code: z.union([z.number(), z.string()]).nullish(), msg: z.string().nullish() }).nullish(),
});

const badEvent = (message: string): StreamOutput => ({ error: { message, type: 'upstream_error', code: 'bad_stream_event', status: 502 } });

/**
 * Coze's v3 chat stream -> OpenAI chunks. The events by their `event:` name:
 * `conversation.message.delta` of an `answer` message -> content (and `reasoning_content` when the
 * bot's model reasons), the first chunk with the role; `conversation.message.completed` -> nothing,
 * but for an answer that came whole without deltas (a card, a workflow's message node);
 * `conversation.chat.completed` -> the finish chunk and the usage-only chunk (`input_count`,
 * `output_count`); `conversation.chat.failed` (its `last_error`) and `error` (`{code, msg}`) -> a
 * stream error with the status the code stands for (error.ts); `conversation.chat.requires_action`
 * (a local plugin waits for a tool result the relay cannot give) -> a stream error. Created, in
 * progress, function calls, tool output, follow-up suggestions, verbose and audio events and `done`
 * produce nothing. An event without a name is the JSON body Coze answered instead of a stream
 * (`{code, msg}`, passed on whole by SseOrBodyFramer): its error.
 */
export class CozeStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private started = false;
  /** Answer messages that streamed deltas: their `completed` event repeats the text. */
  private readonly streamed = new Set<string>();

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-coze', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    if (event.event === undefined) return [this.refusal(event.data)];
    switch (event.event) {
      case 'conversation.chat.created':
      case 'conversation.chat.in_progress': {
        const chat = chatSchema.safeParse(parseJson(event.data));
        if (chat.success && chat.data.id && !this.started) this.writer.id = `chatcmpl-${chat.data.id}`;
        return [];
      }
      case 'conversation.message.delta':
        return this.message(event.data, false);
      case 'conversation.message.completed':
        return this.message(event.data, true);
      case 'conversation.chat.completed':
        return this.completed(event.data);
      case 'conversation.chat.failed': {
        const chat = chatSchema.safeParse(parseJson(event.data));
        const error = chat.success ? chat.data.last_error : undefined;
        // A failed chat whose error has no code (or 0) is Coze's own trouble.
        const code = error?.code != null && Number(error.code) !== 0 ? error.code : 5000;
        return [{ error: cozeFailure(code, error?.msg || 'the Coze chat failed') }];
      }
      case 'conversation.chat.requires_action':
        return [
          {
            error: {
              message: 'the Coze bot waits for a tool result (a local plugin), which the relay cannot give',
              type: 'invalid_request_error',
              code: 'requires_action',
              status: 400,
            },
          },
        ];
      case 'error': {
        const error = cozeErrorSchema.safeParse(parseJson(event.data));
        return [{ error: error.success ? cozeFailure(error.data.code, error.data.msg) : cozeFailure(5000, 'Coze reported an error in the stream') }];
      }
      default: // conversation.audio.delta, done, and events added later
        return [];
    }
  }

  onEnd(): StreamOutput[] {
    return [];
  }

  /** A body in place of a stream: Coze refused the call with `{code, msg}` (HTTP 200 or not). */
  private refusal(data: string): StreamOutput {
    const refused = cozeErrorSchema.safeParse(parseJson(data));
    if (refused.success && Number(refused.data.code) !== 0) return { error: cozeFailure(refused.data.code, refused.data.msg) };
    return badEvent('Coze answered without a stream');
  }

  private message(data: string, completed: boolean): StreamOutput[] {
    const parsed = messageSchema.safeParse(parseJson(data));
    if (!parsed.success) return [badEvent('Coze sent a stream event that is not valid JSON')];
    const message = parsed.data;
    if (message.type !== 'answer' || (message.role && message.role !== 'assistant')) return [];
    const id = message.id ?? '';
    if (!completed) this.streamed.add(id);
    else if (this.streamed.has(id)) return [];
    if (!this.started && message.chat_id) this.writer.id = `chatcmpl-${message.chat_id}`;

    const outputs: StreamOutput[] = [];
    if (message.reasoning_content) outputs.push(this.delta({ reasoning_content: message.reasoning_content }, message.reasoning_content));
    if (message.content) outputs.push(this.delta({ content: message.content }, message.content));
    return outputs;
  }

  private completed(data: string): StreamOutput[] {
    const chat = chatSchema.safeParse(parseJson(data));
    const outputs: StreamOutput[] = [];
    if (!this.started) outputs.push(this.delta({ content: '' }));
    outputs.push(this.writer.finish('stop'));
    const usage = chat.success ? usageFromCoze(chat.data.usage) : null;
    if (usage) outputs.push(this.writer.usage(usage));
    return outputs;
  }

  /** A chunk with one delta; the first one of the stream carries the role. */
  private delta(delta: Record<string, unknown>, text?: string): StreamOutput {
    const first = !this.started;
    this.started = true;
    return this.writer.delta(first ? { role: 'assistant', ...delta } : delta, text);
  }
}

/** Coze's chat usage as ours (`input_count` prompt, `output_count` completion), or null when it gave none. */
function usageFromCoze(usage: z.infer<typeof chatSchema>['usage']): Usage | null {
  if (!usage || (usage.input_count === 0 && usage.output_count === 0 && usage.token_count === 0)) return null;
  return { prompt_tokens: usage.input_count, completion_tokens: usage.output_count, cached_tokens: 0 };
}
