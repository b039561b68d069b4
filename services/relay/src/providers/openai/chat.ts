import { z } from 'zod';
import type { ChatResult, ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { isRecord } from '../shared/content.js';
import { openAiUsageSchema, usageFromOpenAi } from '../shared/usage.js';
import { InvalidUpstreamResponseError, parseJson } from '../shared/upstream-response.js';

/**
 * OpenAI-compatible upstreams take the client's body and answer in the client's format: we only
 * swap the model, apply the channel's overrides, and read usage and text on the way back.
 */

/** The client's body with the upstream model and the channel's `param_override` (shallow, last wins). */
export function openAiChatBody(body: Record<string, unknown>, context: ProviderContext, streamUsage: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = Object.assign({}, body, { model: context.upstreamModel }, context.channel.param_override);
  // Upstreams without stream usage reject or ignore the option; the relay counts tokens instead.
  if (!streamUsage) delete out.stream_options;
  return out;
}

/**
 * A completion in OpenAI's format goes to the client as it came: only checked to be an object, and
 * not copied. A schema parse (z.record) returned a copy, so the relay re-serialised every answer
 * instead of sending the upstream's text (relay-call.ts `answer`): a JSON.stringify per request.
 */
export function openAiChatResponse(json: unknown, provider: string): ChatResult {
  if (!isRecord(json)) {
    const received = json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json;
    throw new InvalidUpstreamResponseError(provider, `body: expected an object, received ${received}`);
  }
  const usage = openAiUsageSchema.safeParse(json.usage);
  return { body: json, usage: usage.success ? usageFromOpenAi(usage.data) : null };
}

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            /** OpenRouter's name for reasoning_content. */
            reasoning: z.string().nullish(),
            tool_calls: z.array(z.object({ function: z.object({ arguments: z.string().nullish() }).nullish() })).nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
  usage: openAiUsageSchema.nullish(),
  error: z.object({ message: z.string().nullish(), type: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }).nullish(),
});

/**
 * Passes every chunk through byte for byte (`data` is the upstream's string: no re-serialising on
 * the hot path) and reads text and usage from it. `[DONE]` yields nothing: the relay ends every
 * successful stream with its own. A chunk that is not JSON is still forwarded, uncounted.
 */
export class OpenAiStreamConverter implements StreamConverter {
  onEvent(event: StreamEvent): StreamOutput[] {
    if (event.data === '[DONE]') return [];
    const parsed = chunkSchema.safeParse(parseJson(event.data));
    if (!parsed.success) return [{ data: event.data }];
    const chunk = parsed.data;
    if (chunk.error?.message) {
      const { message, type, code } = chunk.error;
      return [{ error: { message, type: type ?? 'upstream_error', code: String(code ?? type ?? 'stream_error') } }];
    }
    const output: StreamOutput = { data: event.data };
    const text = chunkText(chunk);
    if (text !== '') output.text = text;
    if (chunk.usage) {
      output.usage = usageFromOpenAi(chunk.usage);
      if (!chunk.choices || chunk.choices.length === 0) output.usageOnly = true;
    }
    return [output];
  }

  onEnd(): StreamOutput[] {
    return [];
  }
}

/** Content, reasoning and tool-call arguments: what the upstream bills as completion. */
function chunkText(chunk: z.infer<typeof chunkSchema>): string {
  let text = '';
  for (const choice of chunk.choices ?? []) {
    const delta = choice.delta;
    if (!delta) continue;
    if (delta.content) text += delta.content;
    if (delta.reasoning_content) text += delta.reasoning_content;
    if (delta.reasoning) text += delta.reasoning;
    for (const call of delta.tool_calls ?? []) if (call.function?.arguments) text += call.function.arguments;
  }
  return text;
}
