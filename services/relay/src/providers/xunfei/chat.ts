import type { ProviderContext } from '../types.js';
import { ignoredRequestKeys, parseChatRequest, type ChatMessage, type ChatRequest } from '../shared/chat-request.js';
import { isRecord } from '../shared/content.js';
import { textOnlyTurns } from '../shared/turns.js';
import type { SparkCredentials, SparkVersion } from './api.js';

/** OpenAI parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set([...ignoredRequestKeys, 'temperature', 'max_tokens', 'max_completion_tokens', 'tools', 'tool_choice', 'user']);

/** Spark's `header.uid` (its end user's id) is at most 32 characters. */
const MAX_UID_LENGTH = 32;

interface SparkText {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * OpenAI chat request -> the one message a Spark socket takes: `header` (the key's APPID, the
 * client's `user` as `uid`), `parameter.chat` (the version's `domain`, `temperature`,
 * `max_tokens`), `payload.message.text` (the conversation as text turns) and, on versions that
 * have them, `payload.functions.text` (the tools). Spark always streams, so `stream` changes
 * nothing here. The channel's `param_override` is merged in depth: every Spark setting sits two
 * levels down (`parameter.chat.top_k`), where a shallow merge could only replace the whole
 * section, the domain with it.
 */
export function sparkMessage(
  body: Record<string, unknown>,
  context: ProviderContext,
  version: SparkVersion,
  credentials: SparkCredentials,
): { message: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by iFlytek Spark and was dropped`);

  const header: Record<string, unknown> = { app_id: credentials.appId };
  if (request.user != null) {
    if (request.user.length > 0 && request.user.length <= MAX_UID_LENGTH) header.uid = request.user;
    else warnings.push(`parameter "user" is longer than Spark's ${MAX_UID_LENGTH}-character uid and was dropped`);
  }
  const chat: Record<string, unknown> = { domain: version.domain };
  if (request.temperature != null) chat.temperature = request.temperature;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) chat.max_tokens = maxTokens;

  const payload: Record<string, unknown> = { message: { text: sparkTexts(request.messages, version, warnings) } };
  const functions = sparkFunctions(request, version, warnings);
  if (functions) payload.functions = { text: functions };

  const message = deepMerge({ header, parameter: { chat }, payload }, context.channel.param_override);
  return { message, warnings };
}

/**
 * The conversation as Spark's text turns: user and assistant alternating (consecutive messages of
 * a side joined by a blank line), the system text first as a `system` turn where the version
 * takes one, else at the head of the first user turn. Images, tool calls and tool results cannot
 * be sent and are reported.
 */
function sparkTexts(messages: ChatMessage[], version: SparkVersion, warnings: string[]): SparkText[] {
  const { system, turns } = textOnlyTurns(messages, warnings, 'iFlytek Spark');
  const texts = turns.map((turn): SparkText => ({ role: turn.role, content: turn.items.join('\n\n') }));
  if (system === '') return texts;
  if (version.system) return [{ role: 'system', content: system }, ...texts];
  const first = texts[0];
  if (first?.role === 'user') first.content = `${system}\n\n${first.content}`;
  else texts.unshift({ role: 'user', content: system });
  return texts;
}

/**
 * The tools as Spark functions (`{name, description, parameters}`), on the versions that take
 * them; `tool_choice` has no Spark counterpart: `auto` is what Spark does anyway, `none` sends no
 * functions, a forced choice is reported as dropped.
 */
function sparkFunctions(request: ChatRequest, version: SparkVersion, warnings: string[]): Array<Record<string, unknown>> | null {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (choice != null && choice !== 'auto' && choice !== 'none') warnings.push('parameter "tool_choice" is not supported by iFlytek Spark and was dropped');
  if (tools.length === 0 || choice === 'none') return null;
  if (!version.functions) {
    warnings.push(`tools are not supported by iFlytek Spark ${version.version} and were dropped`);
    return null;
  }
  return tools.map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? '',
    parameters: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
}

/** `base` with `override` merged in: objects key by key, anything else replaced. */
function deepMerge(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key];
    merged[key] = isRecord(current) && isRecord(value) ? deepMerge(current, value) : value;
  }
  return merged;
}
