import { RelayError } from '../errors.js';
import { countChatPrompt } from '../tokenizer/index.js';
import { estimateCompletion } from '../estimates.js';
import { requestBounds } from '../request-bounds.js';
import { openAiToAnthropicMessage } from '../formats/anthropic-input.js';
import { modelOf } from './model-field.js';
import type { OperationDefinition, OutputFormat } from './types.js';

/**
 * Chat completions, converted by each provider to its protocol and back. `output` 'anthropic' is
 * the Messages API (`POST /v1/messages`): its route converts the request to this format, and the
 * answer goes back in Anthropic's.
 */
function chatOperation(output: OutputFormat): OperationDefinition {
  return {
    name: 'chat',
    label: output === 'anthropic' ? 'messages' : 'chat completions',
    capability: 'chat',
    output,
    inspect(body) {
      const model = modelOf(body);
      if (!Array.isArray(body.messages) || body.messages.length === 0) {
        throw new RelayError(400, 'messages is required', 'invalid_request', 'invalid_request_error', 'messages');
      }
      return { model, stream: body.stream === true, bounds: requestBounds('chat', body) };
    },
    estimatePrompt: (body, model) => countChatPrompt(body.messages, model, body.tools),
    upstream({ provider, context }, body) {
      // Usage in a stream is asked for when the upstream honours it and the client did not.
      const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
      if (!context.stream || !provider.streamUsage || streamOptions?.include_usage === true) {
        return { request: provider.chat.request(body, context), injectedUsage: false };
      }
      const outgoing = { ...body, stream_options: { ...(streamOptions ?? {}), include_usage: true } };
      return { request: provider.chat.request(outgoing, context), injectedUsage: true };
    },
    answer({ provider, context }, json) {
      const { body, usage } = provider.chat.response(json, context);
      return {
        body: output === 'anthropic' ? openAiToAnthropicMessage(body, context.requestedModel) : body,
        usage,
        estimatedCompletion: usage ? 0 : estimateCompletion(body, context.requestedModel),
      };
    },
  };
}

export const chatCompletionsOperation = chatOperation('openai');
export const anthropicMessagesOperation = chatOperation('anthropic');
