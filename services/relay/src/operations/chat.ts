import { chatOf, type ChatResult, type ProviderContext, type ProviderDefinition } from '../providers/types.js';
import { foldStream } from '../providers/shared/stream-fold.js';
import { RelayError } from '../errors.js';
import { chatPromptBound, countChatPrompt } from '../tokenizer/index.js';
import { estimateCompletion } from '../estimates.js';
import { requestBounds } from '../request-bounds.js';
import { modelOf } from './model-field.js';
import { openAiChatStream } from './chat-stream.js';
import type { Attempt, Inspected, OperationDefinition, UpstreamAnswer } from './types.js';

/** The checks of a chat request (OpenAI's format). */
export function inspectChat(body: Record<string, unknown>): Inspected {
  const model = modelOf(body);
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new RelayError(400, 'messages is required', 'invalid_request', 'invalid_request_error', 'messages');
  }
  return { model, stream: body.stream === true, bounds: requestBounds('chat', body) };
}

/** The upstream chat call; usage in a stream is asked for when the upstream honours it and the client did not. */
export function chatUpstream({ provider, context }: Attempt, body: Record<string, unknown>) {
  const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
  if (!context.stream || !provider.streamUsage || streamOptions?.include_usage === true) {
    return { request: chatOf(provider).request(body, context), injectedUsage: false };
  }
  const outgoing = Object.assign({}, body, { stream_options: Object.assign({}, streamOptions, { include_usage: true }) });
  return { request: chatOf(provider).request(outgoing, context), injectedUsage: true };
}

/** A whole chat answer converted by the provider to OpenAI's format. */
export function chatAnswer({ provider, context }: Attempt, upstream: UpstreamAnswer) {
  const { body, usage } = wholeChat(provider, upstream, context);
  return { body, usage, estimatedCompletion: usage ? 0 : estimateCompletion(body, context.requestedModel) };
}

/** A whole chat answer in OpenAI's format: the provider's conversion, or its stream folded when the upstream only streams. */
export function wholeChat(provider: ProviderDefinition, upstream: Pick<UpstreamAnswer, 'text' | 'json'>, context: ProviderContext): ChatResult {
  const chat = chatOf(provider);
  return chat.response ? chat.response(upstream.json(), context) : foldStream(provider, upstream.text, context);
}

const countPrompt = (body: Record<string, unknown>, model: string) => countChatPrompt(body.messages, model, body.tools);
const boundPrompt = (body: Record<string, unknown>) => chatPromptBound(body.messages, body.tools);

/** Chat completions (`POST /v1/chat/completions`), converted by each provider to its protocol and back. */
export const chatCompletionsOperation: OperationDefinition = {
  name: 'chat',
  label: 'chat completions',
  capability: 'chat',
  inspect: inspectChat,
  estimatePrompt: countPrompt,
  boundPrompt,
  upstream: chatUpstream,
  answer: chatAnswer,
  stream: openAiChatStream,
};
