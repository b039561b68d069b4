import { z } from 'zod';
import type { ChatResult, ProviderContext, StreamConverter, StreamEvent, StreamOutput, Usage } from '../types.js';
import { contentText, ignoredRequestKeys, parseChatRequest, type ChatMessage } from '../shared/chat-request.js';
import { foldTurns } from '../shared/turns.js';
import { parseDataUrl, toolArguments } from '../shared/content.js';
import { chatCompletion, ChunkWriter, type FinishReason, type ToolCallOutput } from '../shared/openai-format.js';
import { parseJson, parseUpstream } from '../shared/upstream-response.js';

/**
 * Bedrock's Converse API (every model that is not Anthropic's): OpenAI chat to `messages` of
 * content blocks, `system` blocks and `inferenceConfig`; tools as `toolConfig`; the answer's
 * `output.message` and `usage` (input, output and cache-read tokens) back to OpenAI's shape.
 */

type Block = Record<string, unknown>;

const mappedKeys = new Set([...ignoredRequestKeys, 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop', 'tools', 'tool_choice', 'user']);

export function converseBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Bedrock's Converse API and was dropped`);
  const toolNames = new Map<string, string>();
  const { system, turns } = foldTurns<'user' | 'assistant', Block>(request.messages, warnings, {
    provider: 'Bedrock',
    userRole: 'user',
    assistantRole: 'assistant',
    user: (message) => userBlocks(message, warnings),
    assistant: (message) => assistantBlocks(message, toolNames, warnings),
    tool: (message) => [{ toolResult: { toolUseId: message.tool_call_id ?? '', content: [{ text: contentText(message.content) }] } }],
  });
  const out: Record<string, unknown> = { messages: turns.map((turn) => ({ role: turn.role, content: turn.items })) };
  if (system) out.system = [{ text: system }];
  const inference: Record<string, unknown> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) inference.maxTokens = maxTokens;
  if (request.temperature != null) inference.temperature = request.temperature;
  if (request.top_p != null) inference.topP = request.top_p;
  if (request.stop != null) inference.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (Object.keys(inference).length > 0) out.inferenceConfig = inference;
  if (request.tools?.length) {
    const tools = request.tools.map(({ function: tool }) => ({
      toolSpec: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: { json: tool.parameters ?? { type: 'object' } },
      },
    }));
    const choice = request.tool_choice;
    const toolChoice =
      choice === 'required'
        ? { any: {} }
        : typeof choice === 'object' && choice !== null
          ? { tool: { name: choice.function.name } }
          : choice === 'none'
            ? null
            : { auto: {} };
    if (toolChoice) out.toolConfig = { tools, toolChoice };
    else warnings.push('tool_choice "none": the tools were not sent');
  }
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

function userBlocks(message: ChatMessage, warnings: string[]): Block[] {
  if (typeof message.content === 'string' || message.content == null) return message.content ? [{ text: message.content }] : [];
  const blocks: Block[] = [];
  for (const part of message.content) {
    if (part.type === 'text') blocks.push({ text: part.text });
    else if (part.type === 'image_url') {
      const data = parseDataUrl(part.url);
      const format = data?.mediaType.split('/')[1];
      if (data && format && ['png', 'jpeg', 'gif', 'webp'].includes(format)) blocks.push({ image: { format, source: { bytes: data.data } } });
      else warnings.push('an image by URL is not supported by Bedrock (only inline png, jpeg, gif or webp) and was dropped');
    } else warnings.push(`a content part of type "${part.originalType}" is not supported by Bedrock and was dropped`);
  }
  return blocks;
}

function assistantBlocks(message: ChatMessage, toolNames: Map<string, string>, warnings: string[]): Block[] {
  const blocks: Block[] = [];
  const text = contentText(message.content);
  if (text) blocks.push({ text });
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    const id = call.id ?? `call_${index}`;
    toolNames.set(id, call.function.name);
    blocks.push({ toolUse: { toolUseId: id, name: call.function.name, input: toolArguments(call.function.arguments, warnings) } });
  }
  return blocks;
}

const usageSchema = z.object({
  inputTokens: z.number().nullish(),
  outputTokens: z.number().nullish(),
  cacheReadInputTokens: z.number().nullish(),
  cacheWriteInputTokens: z.number().nullish(),
});

/** Converse reports input tokens beside cache reads and writes; OpenAI's prompt tokens include them all. */
export function usageFromConverse(usage: z.infer<typeof usageSchema>): Usage {
  const cached = usage.cacheReadInputTokens ?? 0;
  const written = usage.cacheWriteInputTokens ?? 0;
  return {
    prompt_tokens: (usage.inputTokens ?? 0) + cached + written,
    completion_tokens: usage.outputTokens ?? 0,
    cached_tokens: cached,
    ...(written > 0 ? { cache_creation_tokens: written } : {}),
  };
}

export function finishReasonFromConverse(stopReason: string | null | undefined): FinishReason | null {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return stopReason ? 'stop' : null;
  }
}

const converseResponseSchema = z.object({
  output: z.object({
    message: z.object({
      content: z.array(
        z.object({
          text: z.string().nullish(),
          toolUse: z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).nullish(),
          reasoningContent: z.object({ reasoningText: z.object({ text: z.string().nullish() }).nullish() }).nullish(),
        }),
      ),
    }),
  }),
  stopReason: z.string().nullish(),
  usage: usageSchema.nullish(),
});

export function converseResponse(json: unknown, context: ProviderContext): ChatResult {
  const answer = parseUpstream(converseResponseSchema, json, 'bedrock');
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCallOutput[] = [];
  for (const block of answer.output.message.content) {
    if (block.text) content += block.text;
    if (block.reasoningContent?.reasoningText?.text) reasoning += block.reasoningContent.reasoningText.text;
    if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
    }
  }
  const usage = answer.usage ? usageFromConverse(answer.usage) : null;
  const body = chatCompletion({
    id: 'chatcmpl-bedrock',
    model: context.upstreamModel,
    content,
    reasoning,
    toolCalls,
    finishReason: finishReasonFromConverse(answer.stopReason),
    usage,
  });
  return { body, usage };
}

const streamEventSchema = z.object({
  contentBlockIndex: z.number().nullish(),
  start: z.object({ toolUse: z.object({ toolUseId: z.string(), name: z.string() }).nullish() }).nullish(),
  delta: z
    .object({
      text: z.string().nullish(),
      toolUse: z.object({ input: z.string().nullish() }).nullish(),
      reasoningContent: z.object({ text: z.string().nullish() }).nullish(),
    })
    .nullish(),
  stopReason: z.string().nullish(),
  usage: usageSchema.nullish(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

/**
 * ConverseStream events (from the event-stream framing, named by `:event-type`) -> OpenAI chunks:
 * messageStart -> the role chunk, contentBlockStart of a tool -> the tool call's head,
 * contentBlockDelta -> content, reasoning or tool arguments, messageStop -> the finish chunk,
 * metadata -> the usage-only chunk; an exception -> a stream error.
 */
export class ConverseStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  /** Content block index -> OpenAI tool call index. */
  private readonly toolIndexes = new Map<number, number>();

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-bedrock', context.upstreamModel);
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    const parsed = streamEventSchema.safeParse(parseJson(event.data));
    if (!parsed.success)
      return [{ error: { message: 'Bedrock sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    const data = parsed.data;
    switch (event.event) {
      case 'messageStart':
        return [this.writer.delta({ role: 'assistant', content: '' })];
      case 'contentBlockStart': {
        const tool = data.start?.toolUse;
        if (!tool) return [];
        const index = this.toolIndexes.size;
        this.toolIndexes.set(data.contentBlockIndex ?? 0, index);
        return [this.writer.delta({ tool_calls: [{ index, id: tool.toolUseId, type: 'function', function: { name: tool.name, arguments: '' } }] })];
      }
      case 'contentBlockDelta': {
        const delta = data.delta;
        if (delta?.text) return [this.writer.delta({ content: delta.text }, delta.text)];
        if (delta?.reasoningContent?.text) return [this.writer.delta({ reasoning_content: delta.reasoningContent.text }, delta.reasoningContent.text)];
        const input = delta?.toolUse?.input;
        if (input) {
          const index = this.toolIndexes.get(data.contentBlockIndex ?? 0) ?? 0;
          return [this.writer.delta({ tool_calls: [{ index, function: { arguments: input } }] }, input)];
        }
        return [];
      }
      case 'messageStop':
        return [this.writer.finish(finishReasonFromConverse(data.stopReason) ?? 'stop')];
      case 'metadata':
        return data.usage ? [this.writer.usage(usageFromConverse(data.usage))] : [];
      case 'error':
        return [
          {
            error: {
              message: data.error?.message ?? 'Bedrock reported an error in the stream',
              type: 'upstream_error',
              code: data.error?.type ?? 'bedrock_stream_error',
            },
          },
        ];
      default:
        return [];
    }
  }

  onEnd(): StreamOutput[] {
    return [];
  }
}
