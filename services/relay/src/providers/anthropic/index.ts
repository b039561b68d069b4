import { z } from 'zod';
import type { ChatProviderDefinition } from '../types.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { anthropicHeaders, anthropicUrl } from './api.js';
import { anthropicChatBody, anthropicChatResponse } from './chat.js';
import { AnthropicStreamConverter } from './chat-stream.js';
import { anthropicError } from './error.js';

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })) });

/** Anthropic (channel type 14): OpenAI chat converted to and from the native Messages API, which Messages clients get unchanged. */
export const anthropicProvider: ChatProviderDefinition = {
  id: 'anthropic',
  operations: ['chat'],
  // Anthropic always reports usage in its stream; the converter emits it as the usage-only chunk.
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const converted = anthropicChatBody(body, context);
      return {
        method: 'POST',
        url: anthropicUrl(context, '/messages'),
        headers: anthropicHeaders(context.key),
        body: JSON.stringify(converted.body),
        ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
      };
    },
    response: anthropicChatResponse,
    stream: (context) => new AnthropicStreamConverter(context),
  },
  messages: {
    request: (body, context) => ({
      method: 'POST',
      url: anthropicUrl(context, '/messages'),
      headers: anthropicHeaders(context.key, context.forwarded),
      body: JSON.stringify({ ...body, model: context.upstreamModel }),
    }),
  },
  models: {
    // The list is paged (20 by default); 1,000 is the largest page and more than Anthropic has models.
    request: (context) => ({ method: 'GET', url: `${anthropicUrl(context, '/models')}?limit=1000`, headers: anthropicHeaders(context.key) }),
    parse: (json) => parseUpstream(modelListSchema, json, 'anthropic').data.map((model) => model.id),
  },
  error: anthropicError,
};
