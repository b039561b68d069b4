import type { ChatProviderDefinition } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { OpenAiStreamConverter, openAiChatBody, openAiChatResponse } from '../openai/chat.js';
import { z } from 'zod';
import { parseUpstream } from '../shared/upstream-response.js';
import { cloudflareHeaders, cloudflareModelsUrl, cloudflareUrl } from './api.js';

const modelListSchema = z.object({ result: z.array(z.object({ name: z.string() })) });
import { cloudflareError } from './error.js';

/**
 * Cloudflare Workers AI (channel type 39): its OpenAI-compatible endpoints under the channel's
 * account (`other`), chat and embeddings forwarded as the client sent them but for the model.
 * Cloudflare honours `stream_options.include_usage`, so the relay asks streams for their usage.
 */
export const cloudflareProvider: ChatProviderDefinition = {
  id: 'cloudflare',
  operations: ['chat', 'embeddings'],
  streamUsage: true,
  chat: {
    request: (body, context) => ({
      method: 'POST',
      url: cloudflareUrl(context, '/chat/completions'),
      headers: cloudflareHeaders(context.key),
      body: JSON.stringify(openAiChatBody(body, context, true)),
    }),
    response: (json) => openAiChatResponse(json, 'cloudflare'),
    stream: () => new OpenAiStreamConverter(),
  },
  passthrough: {
    // `/v1/embeddings` -> `.../ai/v1/embeddings`; only the model is swapped.
    request: (path, body, context) => ({
      method: 'POST',
      url: cloudflareUrl(context, path.slice('/v1'.length)),
      headers: cloudflareHeaders(context.key),
      body: JSON.stringify({ ...body, model: context.upstreamModel }),
    }),
    usage: openAiUsageOf,
  },
  models: {
    request: (context) => ({ method: 'GET', url: cloudflareModelsUrl(context), headers: cloudflareHeaders(context.key) }),
    parse: (json) => parseUpstream(modelListSchema, json, 'cloudflare').result.map((model) => model.name),
  },
  error: cloudflareError,
};
