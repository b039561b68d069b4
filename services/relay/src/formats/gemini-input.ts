import { parseJsonObject } from '../providers/shared/content.js';

/**
 * Gemini's generateContent API on the client side (`POST /v1beta/models/{model}:generateContent`),
 * pure data in and out: a Gemini request becomes the OpenAI chat body the relay pipeline speaks,
 * and the pipeline's OpenAI answer (whole or streamed) becomes Gemini's again. Used when the
 * channel does not speak Gemini natively; the provider adapters (providers/gemini) do the opposite
 * direction, towards Gemini upstreams.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** The text of a Content's parts (a systemInstruction). */
function partsText(content: unknown): string {
  return list(isObject(content) ? content.parts : undefined)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** Gemini's OpenAPI-style schema (`type: "OBJECT"`) as JSON Schema (`type: "object"`). */
export function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === 'type' && typeof value === 'string' ? value.toLowerCase() : jsonSchemaOf(value);
  }
  return out;
}

/** A call id both sides agree on: Gemini's own id when it gave one, else one made from the name and position. */
const callId = (call: Json, index: number) => (typeof call.id === 'string' && call.id !== '' ? call.id : `call_${String(call.name)}_${index}`);

function userMessages(parts: Json[], pendingCalls: string[]): Json[] {
  const out: Json[] = [];
  const content: Json[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string') content.push({ type: 'text', text: part.text });
    else if (isObject(part.inlineData) && typeof part.inlineData.data === 'string') {
      const mime = typeof part.inlineData.mimeType === 'string' ? part.inlineData.mimeType : 'application/octet-stream';
      content.push({ type: 'image_url', image_url: { url: `data:${mime};base64,${part.inlineData.data}` } });
    } else if (isObject(part.fileData) && typeof part.fileData.fileUri === 'string') {
      content.push({ type: 'image_url', image_url: { url: part.fileData.fileUri } });
    } else if (isObject(part.functionResponse)) {
      // Answers to the previous model turn's calls, in order: tool messages with the calls' ids.
      const response = part.functionResponse;
      const id = typeof response.id === 'string' && response.id !== '' ? response.id : (pendingCalls.shift() ?? `call_${String(response.name)}`);
      out.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(response.response ?? {}) });
    }
  }
  if (content.length > 0)
    out.push({ role: 'user', content: content.every((part) => part.type === 'text') ? content.map((part) => part.text).join('') : content });
  return out;
}

function modelMessage(parts: Json[], pendingCalls: string[]): Json | null {
  let text = '';
  const toolCalls: Json[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string' && part.thought !== true) text += part.text;
    else if (isObject(part.functionCall)) {
      const id = callId(part.functionCall, toolCalls.length);
      pendingCalls.push(id);
      toolCalls.push({ id, type: 'function', function: { name: String(part.functionCall.name), arguments: JSON.stringify(part.functionCall.args ?? {}) } });
    }
  }
  if (text === '' && toolCalls.length === 0) return null;
  return { role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

/** A generateContent request -> the OpenAI chat body the pipeline takes. */
export function geminiToOpenAi(body: Json, model: string, stream: boolean): Json {
  const messages: Json[] = [];
  const system = partsText(body.systemInstruction ?? body.system_instruction);
  if (system !== '') messages.push({ role: 'system', content: system });
  const pendingCalls: string[] = [];
  for (const content of list(body.contents)) {
    const parts = list(content.parts);
    if (content.role === 'model') {
      const message = modelMessage(parts, pendingCalls);
      if (message) messages.push(message);
    } else {
      messages.push(...userMessages(parts, pendingCalls));
    }
  }

  const out: Json = { model, messages };
  if (stream) out.stream = true;
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  if (typeof config.maxOutputTokens === 'number') out.max_tokens = config.maxOutputTokens;
  if (typeof config.temperature === 'number') out.temperature = config.temperature;
  if (typeof config.topP === 'number') out.top_p = config.topP;
  if (typeof config.candidateCount === 'number') out.n = config.candidateCount;
  if (typeof config.seed === 'number') out.seed = config.seed;
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 0) out.stop = config.stopSequences;
  if (config.responseMimeType === 'application/json') {
    out.response_format = isObject(config.responseSchema)
      ? { type: 'json_schema', json_schema: { name: 'response', schema: jsonSchemaOf(config.responseSchema) } }
      : { type: 'json_object' };
  }
  const declarations = list(body.tools).flatMap((tool) => list(tool.functionDeclarations ?? tool.function_declarations));
  if (declarations.length > 0) {
    out.tools = declarations.map((declaration) => ({
      type: 'function',
      function: {
        name: declaration.name,
        ...(typeof declaration.description === 'string' ? { description: declaration.description } : {}),
        parameters: jsonSchemaOf(declaration.parameters ?? declaration.parametersJsonSchema ?? { type: 'object', properties: {} }),
      },
    }));
    const mode = isObject(body.toolConfig) && isObject(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig.mode : undefined;
    if (mode === 'NONE') out.tool_choice = 'none';
    else if (mode === 'ANY') out.tool_choice = 'required';
  }
  return out;
}

/** OpenAI's finish reason in Gemini's words. */
export function geminiFinishReason(reason: unknown): string {
  switch (reason) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

interface OpenAiUsageIn {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

export function geminiUsageMetadata(usage: unknown): Json | null {
  if (!isObject(usage)) return null;
  const { prompt_tokens: prompt = 0, completion_tokens: completion = 0, prompt_tokens_details: details } = usage as OpenAiUsageIn;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion,
    totalTokenCount: prompt + completion,
    ...(details?.cached_tokens ? { cachedContentTokenCount: details.cached_tokens } : {}),
  };
}

function functionCallPart(call: unknown): Json | null {
  if (!isObject(call) || !isObject(call.function)) return null;
  let args: unknown;
  try {
    args = JSON.parse(typeof call.function.arguments === 'string' && call.function.arguments !== '' ? call.function.arguments : '{}');
  } catch {
    args = {};
  }
  return { functionCall: { name: call.function.name, args } };
}

/** A whole OpenAI chat completion -> a GenerateContentResponse. */
export function openAiToGemini(completion: unknown, model: string): Json {
  const body = isObject(completion) ? completion : {};
  const candidates = list(body.choices).map((choice, index) => {
    const message = isObject(choice.message) ? choice.message : {};
    const parts: Json[] = [];
    if (typeof message.content === 'string' && message.content !== '') parts.push({ text: message.content });
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const part = functionCallPart(call);
      if (part) parts.push(part);
    }
    return { content: { role: 'model', parts }, finishReason: geminiFinishReason(choice.finish_reason), index };
  });
  const usage = geminiUsageMetadata(body.usage);
  return { candidates, ...(usage ? { usageMetadata: usage } : {}), modelVersion: model, ...(typeof body.id === 'string' ? { responseId: body.id } : {}) };
}

/**
 * OpenAI chat chunks -> GenerateContentResponse chunks, chunk by chunk: text deltas go out at
 * once; tool call arguments arrive in fragments in OpenAI's stream and whole in Gemini's, so each
 * call is sent when the finish chunk comes; usage goes on the last chunk. One instance per request.
 */
export class OpenAiToGeminiStream {
  private readonly calls = new Map<number, { name: string; arguments: string }>();
  private finishReason: unknown = null;
  private usage: Json | null = null;

  constructor(private readonly model: string) {}

  /** Gemini chunks (JSON objects) for one OpenAI chunk's JSON text. */
  push(data: string): Json[] {
    const chunk = parseJsonObject(data);
    if (!chunk) return [];
    const usage = geminiUsageMetadata(chunk.usage);
    if (usage) this.usage = usage;
    const choice = list(chunk.choices)[0];
    if (!choice) return [];
    const delta = isObject(choice.delta) ? choice.delta : {};
    for (const call of list(delta.tool_calls)) {
      const index = typeof call.index === 'number' ? call.index : 0;
      const fn = isObject(call.function) ? call.function : {};
      const known = this.calls.get(index) ?? { name: '', arguments: '' };
      if (typeof fn.name === 'string' && fn.name !== '') known.name = fn.name;
      if (typeof fn.arguments === 'string') known.arguments += fn.arguments;
      this.calls.set(index, known);
    }
    if (choice.finish_reason != null) this.finishReason = choice.finish_reason;
    if (typeof delta.content === 'string' && delta.content !== '') return [this.chunk([{ text: delta.content }], null)];
    return [];
  }

  /**
   * The last chunk: the tool calls, the finish reason and the usage (the relay's count when the
   * upstream sent none: `fallback` is called only then, as counting is a tokenizer pass).
   */
  finish(fallback: () => { prompt: number; completion: number }): Json {
    const parts = [...this.calls.values()].map((call) => functionCallPart({ function: call })!).filter(Boolean);
    let usage = this.usage;
    if (!usage) {
      const { prompt, completion } = fallback();
      usage = geminiUsageMetadata({ prompt_tokens: prompt, completion_tokens: completion });
    }
    return { ...this.chunk(parts, geminiFinishReason(this.finishReason)), usageMetadata: usage };
  }

  private chunk(parts: Json[], finishReason: string | null): Json {
    return { candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }], modelVersion: this.model };
  }
}
