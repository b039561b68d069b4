import { z } from 'zod';
import type { ProviderDefinition } from '../types.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { geminiChatUrl, geminiHeaders, geminiModelsUrl } from './api.js';
import { geminiChatBody, geminiChatResponse } from './chat.js';
import { GeminiStreamConverter } from './chat-stream.js';
import { geminiError } from './error.js';

const modelListSchema = z.object({ models: z.array(z.object({ name: z.string() })) });

/** Gemini (channel type 24): OpenAI chat converted to and from generateContent. */
export const geminiProvider: ProviderDefinition = {
  id: 'gemini',
  operations: ['chat'],
  // Gemini always reports usage in its stream; the converter emits it as the usage-only chunk.
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const converted = geminiChatBody(body, context);
      return {
        method: 'POST',
        url: geminiChatUrl(context),
        headers: geminiHeaders(context.key),
        body: JSON.stringify(converted.body),
        ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
      };
    },
    response: geminiChatResponse,
    stream: (context) => new GeminiStreamConverter(context),
  },
  models: {
    request: (context) => ({ method: 'GET', url: geminiModelsUrl(context), headers: geminiHeaders(context.key) }),
    parse: (json) => parseUpstream(modelListSchema, json, 'gemini').models.map((model) => model.name.replace(/^models\//, '')),
  },
  error: geminiError,
};
