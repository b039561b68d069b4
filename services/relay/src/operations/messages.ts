import { RelayError } from '../errors.js';
import { anthropicToOpenAi, openAiToAnthropicMessage } from '../formats/anthropic-input.js';
import { MAX_OUTPUT_TOKENS } from '../request-bounds.js';
import { chatPromptBound, countChatPrompt } from '../tokenizer/index.js';
import { estimateCompletion } from '../estimates.js';
import { anthropicUsageSchema, usageFromAnthropic } from '../providers/anthropic/chat.js';
import { anthropicChatStream } from './chat-stream.js';
import { anthropicPassthroughStream } from './messages-stream.js';
import { chatAnswer, chatUpstream } from './chat.js';
import { modelOf } from './model-field.js';
import type { Attempt, OperationDefinition } from './types.js';
import { z } from 'zod';

const answerUsage = z.object({ usage: anthropicUsageSchema });

/**
 * Anthropic's Messages API (`POST /v1/messages`). A channel whose provider speaks it natively
 * (`ProviderDefinition.messages`) gets the client's body unchanged but for the model, so
 * cache_control, thinking blocks and tools survive, and the client gets the upstream's answer and
 * events unchanged; usage (cache reads and writes included) comes from Anthropic's own fields.
 * Any other chat channel gets the request converted to OpenAI's chat format and the answer
 * converted back.
 */
export const messagesOperation: OperationDefinition = {
  name: 'chat',
  label: 'messages',
  capability: 'chat',
  forwardHeaders: ['anthropic-version', 'anthropic-beta'],
  inspect(body) {
    const model = modelOf(body);
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw new RelayError(400, 'messages: a non-empty array is required', 'invalid_request', 'invalid_request_error', 'messages');
    }
    const maxTokens = body.max_tokens;
    if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_OUTPUT_TOKENS) {
      throw new RelayError(400, `max_tokens: an integer from 1 to ${MAX_OUTPUT_TOKENS} is required`, 'invalid_request', 'invalid_request_error', 'max_tokens');
    }
    return { model, stream: body.stream === true, bounds: { maxTokens, answers: 1 } };
  },
  estimatePrompt(body, model) {
    const converted = anthropicToOpenAi(body);
    return countChatPrompt(converted.messages, model, converted.tools);
  },
  // The conversion is cheap beside a tokenizer pass, and bounding what is counted keeps the two in step.
  boundPrompt(body) {
    const converted = anthropicToOpenAi(body);
    return chatPromptBound(converted.messages, converted.tools);
  },
  upstream(attempt, body) {
    if (isNative(attempt)) return { request: attempt.provider.messages!.request(body, attempt.context), injectedUsage: false };
    return chatUpstream(attempt, anthropicToOpenAi(body));
  },
  answer(attempt, upstream) {
    if (isNative(attempt)) {
      const json = upstream.json();
      const parsed = answerUsage.safeParse(json);
      const usage = parsed.success ? usageFromAnthropic(parsed.data.usage) : null;
      return { body: json, usage, estimatedCompletion: usage ? 0 : estimateCompletion(json, attempt.context.requestedModel) };
    }
    const converted = chatAnswer(attempt, upstream);
    return Object.assign({}, converted, { body: openAiToAnthropicMessage(converted.body, attempt.context.requestedModel) });
  },
  stream: (attempt, options) => (isNative(attempt) ? anthropicPassthroughStream(attempt) : anthropicChatStream(attempt, options)),
};

/** The channel speaks Messages for this model (Bedrock only for Anthropic's models): the body goes unchanged. */
const isNative = (attempt: Attempt) => {
  const native = attempt.provider.messages;
  return native !== undefined && (native.serves?.(attempt.context) ?? true);
};
