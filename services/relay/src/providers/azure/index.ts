import { OPENAI_FORMAT_OPERATIONS, type ProviderDefinition } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { OpenAiStreamConverter, openAiChatBody, openAiChatResponse } from '../openai/chat.js';
import { openAiError } from '../openai/error.js';
import { azureHeaders, azureUrl } from './api.js';

/**
 * Azure OpenAI (channel type 3): OpenAI's protocol and error shape behind Azure's deployment
 * URLs and `api-key` header. No model list: Azure lists deployments only through its management
 * API, which an API key cannot call.
 */
export const azureProvider: ProviderDefinition = {
  id: 'azure',
  operations: OPENAI_FORMAT_OPERATIONS,
  streamUsage: true,
  chat: {
    request: (body, context) => ({
      method: 'POST',
      url: azureUrl(context, 'chat/completions'),
      headers: azureHeaders(context.key),
      body: JSON.stringify(openAiChatBody(body, context, true)),
    }),
    response: (json) => openAiChatResponse(json, 'azure'),
    stream: () => new OpenAiStreamConverter(),
  },
  passthrough: {
    request: (path, body, context) => ({
      method: 'POST',
      url: azureUrl(context, path.slice('/v1/'.length)),
      headers: azureHeaders(context.key),
      body: JSON.stringify({ ...body, model: context.upstreamModel }),
    }),
    usage: openAiUsageOf,
  },
  error: openAiError,
};
