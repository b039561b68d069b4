import crypto from 'node:crypto';
import { parseJsonObject } from '../providers/shared/content.js';

/**
 * Anthropic Messages API on the client side (`POST /v1/messages`), pure data in and out: a
 * Messages request becomes the OpenAI chat body the relay pipeline speaks, and the pipeline's
 * OpenAI answer (whole or streamed) becomes a Messages answer again. The provider adapters
 * (providers/anthropic) do the opposite direction, towards Anthropic upstreams.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field that should be text: a string as it is, a number as digits, anything else the fallback (never "[object Object]"). */
function textField(value: unknown, fallback: string): string {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : fallback;
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** The text of a string or of the text blocks of a block list. */
function textOf(content: unknown): string {
  return blocksOf(content)
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** An image block as an OpenAI image_url part: base64 sources as data URLs, url sources as they are. */
function imagePart(block: Json): Json | null {
  const source = isObject(block.source) ? block.source : null;
  if (source?.type === 'base64' && typeof source.data === 'string') {
    return { type: 'image_url', image_url: { url: `data:${textField(source.media_type, 'image/png')};base64,${source.data}` } };
  }
  if (source?.type === 'url' && typeof source.url === 'string') return { type: 'image_url', image_url: { url: source.url } };
  return null;
}

function userMessages(content: unknown): Json[] {
  const out: Json[] = [];
  const parts: Json[] = [];
  for (const block of blocksOf(content)) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') {
      const part = imagePart(block);
      if (part) parts.push(part);
    } else if (block.type === 'tool_result') {
      // Tool results answer the previous assistant turn's calls: they go first, as tool messages.
      const text = typeof block.content === 'string' ? block.content : textOf(block.content);
      out.push({ role: 'tool', tool_call_id: textField(block.tool_use_id, ''), content: block.is_error === true && text === '' ? 'error' : text });
    }
    // Other blocks (documents, thinking, server tools) have no OpenAI equivalent and are dropped.
  }
  if (parts.length === 1 && parts[0]!.type === 'text') out.push({ role: 'user', content: parts[0]!.text });
  else if (parts.length > 0) out.push({ role: 'user', content: parts });
  return out;
}

function assistantMessage(content: unknown): Json | null {
  let text = '';
  const toolCalls: Json[] = [];
  for (const block of blocksOf(content)) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: textField(block.id, `call_${toolCalls.length}`),
        type: 'function',
        function: { name: textField(block.name, ''), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  if (text === '' && toolCalls.length === 0) return null;
  const message: Json = { role: 'assistant', content: text === '' ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function toolChoice(choice: unknown): { tool_choice?: unknown; parallel_tool_calls?: boolean } {
  if (!isObject(choice)) return {};
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: textField(choice.name, '') } }, ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    default:
      return { tool_choice: 'auto', ...parallel };
  }
}

/** A Messages API request -> the OpenAI chat body the relay pipeline takes. */
export function anthropicToOpenAi(body: Json): Json {
  const messages: Json[] = [];
  const system = textOf(body.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObject) : []) {
    if (message.role === 'assistant') {
      const converted = assistantMessage(message.content);
      if (converted) messages.push(converted);
    } else {
      messages.push(...userMessages(message.content));
    }
  }

  const out: Json = { model: body.model, messages };
  if (body.max_tokens !== undefined) out.max_tokens = body.max_tokens;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) out.stop = body.stop_sequences;
  if (body.stream === true) out.stream = true;
  if (isObject(body.metadata) && typeof body.metadata.user_id === 'string') out.user = body.metadata.user_id;
  const tools = Array.isArray(body.tools)
    ? body.tools.filter((tool): tool is Json => isObject(tool) && typeof tool.name === 'string' && isObject(tool.input_schema))
    : [];
  if (tools.length > 0) {
    out.tools = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, ...(typeof tool.description === 'string' ? { description: tool.description } : {}), parameters: tool.input_schema },
    }));
    Object.assign(out, toolChoice(body.tool_choice));
  }
  return out;
}

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal' | 'stop_sequence';

export function stopReasonFromOpenAi(finishReason: unknown): AnthropicStopReason {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

interface AnthropicUsageOut {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
}

/** OpenAI usage (prompt includes cached tokens) -> Anthropic usage (input excludes cache reads). */
function usageFromOpenAiBody(usage: unknown): AnthropicUsageOut | null {
  if (!isObject(usage)) return null;
  const prompt = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const completion = typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0;
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cached = typeof details.cached_tokens === 'number' ? Math.min(details.cached_tokens, prompt) : 0;
  return { input_tokens: prompt - cached, output_tokens: completion, ...(cached > 0 ? { cache_read_input_tokens: cached } : {}) };
}

function messageId(id: unknown): string {
  return typeof id === 'string' && id !== '' ? (id.startsWith('msg_') ? id : `msg_${id}`) : `msg_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** A whole OpenAI chat completion -> a Messages API message. */
export function openAiToAnthropicMessage(completion: unknown, requestedModel: string): Json {
  const body = isObject(completion) ? completion : {};
  const choice = Array.isArray(body.choices) && isObject(body.choices[0]) ? body.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const content: Json[] = [];
  if (typeof message.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []) {
    const fn = isObject(call.function) ? call.function : {};
    content.push({
      type: 'tool_use',
      id: textField(call.id, `toolu_${content.length}`),
      name: textField(fn.name, ''),
      input: typeof fn.arguments === 'string' ? (parseJsonObject(fn.arguments) ?? {}) : {},
    });
  }
  return {
    id: messageId(body.id),
    type: 'message',
    role: 'assistant',
    model: requestedModel,
    content,
    stop_reason: stopReasonFromOpenAi(choice.finish_reason),
    stop_sequence: null,
    usage: usageFromOpenAiBody(body.usage) ?? { input_tokens: 0, output_tokens: 0 },
  };
}

/** One Anthropic server-sent event. */
export function anthropicEvent(type: string, data: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** An in-stream error event in Anthropic's shape. */
export function anthropicErrorEvent(type: string, message: string): string {
  return anthropicEvent('error', { error: { type, message } });
}

/**
 * OpenAI `chat.completion.chunk`s -> Messages API stream events, chunk by chunk (nothing held
 * back but the stop reason and usage, which OpenAI sends last: the finish chunk, then the
 * usage-only chunk). Text deltas go to a text block, each tool call to its own tool_use block
 * (arguments as input_json_delta); `finish()` closes the open block and sends message_delta
 * (stop reason and usage) and message_stop. One instance per request.
 */
export class OpenAiToAnthropicStream {
  private started = false;
  private id: string | null = null;
  /** Anthropic index of the open block, and what it is; -1 when none is open. */
  private open = -1;
  private openKind: 'text' | 'tool' | null = null;
  private blocks = 0;
  /** OpenAI tool call index -> Anthropic block index. */
  private readonly tools = new Map<number, number>();
  private finishReason: unknown = null;
  private usage: AnthropicUsageOut | null = null;

  constructor(
    private readonly model: string,
    /** The locally estimated prompt size, for message_start (the real count comes with message_delta). */
    private readonly estimatedInputTokens = 0,
  ) {}

  /** Events for one OpenAI chunk (its JSON text). */
  push(data: string): string[] {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return [];
    }
    if (!isObject(chunk)) return [];
    if (this.id === null && typeof chunk.id === 'string') this.id = chunk.id;
    const events = this.start();
    const usage = usageFromOpenAiBody(chunk.usage);
    if (usage) this.usage = usage;
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : null;
    if (!choice) return events;
    const delta = isObject(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      if (this.openKind !== 'text') events.push(...this.openBlock('text', { type: 'text', text: '' }));
      events.push(anthropicEvent('content_block_delta', { index: this.open, delta: { type: 'text_delta', text: delta.content } }));
    }
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isObject) : []) {
      const toolIndex = typeof call.index === 'number' ? call.index : 0;
      const fn = isObject(call.function) ? call.function : {};
      let index = this.tools.get(toolIndex);
      if (index === undefined) {
        events.push(...this.openBlock('tool', { type: 'tool_use', id: textField(call.id, `toolu_${toolIndex}`), name: textField(fn.name, ''), input: {} }));
        index = this.open;
        this.tools.set(toolIndex, index);
      }
      if (typeof fn.arguments === 'string' && fn.arguments !== '') {
        events.push(anthropicEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fn.arguments } }));
      }
    }
    if (choice.finish_reason != null) this.finishReason = choice.finish_reason;
    return events;
  }

  /**
   * The closing events. `fallback` gives the usage to report when the upstream sent none (the
   * relay's local count: called only then, as counting is a tokenizer pass).
   */
  finish(fallback?: () => { input_tokens: number; output_tokens: number }): string[] {
    const events = this.start();
    events.push(...this.closeBlock());
    const usage = this.usage ?? fallback?.() ?? { input_tokens: this.estimatedInputTokens, output_tokens: 0 };
    events.push(anthropicEvent('message_delta', { delta: { stop_reason: stopReasonFromOpenAi(this.finishReason), stop_sequence: null }, usage }));
    events.push(anthropicEvent('message_stop', {}));
    return events;
  }

  private start(): string[] {
    if (this.started) return [];
    this.started = true;
    return [
      anthropicEvent('message_start', {
        message: {
          id: messageId(this.id),
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: this.estimatedInputTokens, output_tokens: 0 },
        },
      }),
    ];
  }

  private openBlock(kind: 'text' | 'tool', block: Json): string[] {
    const events = this.closeBlock();
    this.open = this.blocks++;
    this.openKind = kind;
    events.push(anthropicEvent('content_block_start', { index: this.open, content_block: block }));
    return events;
  }

  private closeBlock(): string[] {
    if (this.open < 0) return [];
    const event = anthropicEvent('content_block_stop', { index: this.open });
    this.open = -1;
    this.openKind = null;
    return [event];
  }
}
