import { OPENAI_FORMAT_OPERATIONS, type ChatProviderDefinition } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { openAiHeaders } from '../openai/api.js';
import { OpenAiStreamConverter, openAiChatBody, openAiChatResponse } from '../openai/chat.js';
import { openAiError } from '../openai/error.js';
import { customUrl } from './api.js';

/**
 * Custom (channel type 8): an OpenAI-compatible endpoint at a URL the admin spells out in full,
 * used for every operation of the channel. No model list: there is no URL to ask.
 */
export const customProvider: ChatProviderDefinition = {
  id: 'custom',
  operations: OPENAI_FORMAT_OPERATIONS,
  streamUsage: false,
  chat: {
    request: (body, context) => ({
      method: 'POST',
      url: customUrl(context),
      headers: openAiHeaders(context),
      body: JSON.stringify(openAiChatBody(body, context, false)),
    }),
    response: (json) => openAiChatResponse(json, 'custom'),
    stream: () => new OpenAiStreamConverter(),
  },
  passthrough: {
    request: (_path, body, context) => ({
      method: 'POST',
      url: customUrl(context),
      headers: openAiHeaders(context),
      body: JSON.stringify({ ...body, model: context.upstreamModel }),
    }),
    usage: openAiUsageOf,
  },
  error: openAiError,
};
