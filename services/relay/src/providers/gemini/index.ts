import { z } from 'zod';
import type { ChatProviderDefinition } from '../types.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { geminiChatUrl, geminiHeaders, geminiMethodUrl, geminiModelsUrl, geminiOpenAiUrl } from './api.js';
import { openAiUsageOf } from '../shared/usage.js';
import { geminiChatBody, geminiChatResponse } from './chat.js';
import { GeminiStreamConverter } from './chat-stream.js';
import { geminiError } from './error.js';

const modelListSchema = z.object({ models: z.array(z.object({ name: z.string() })) });

/** Gemini (channel type 24): OpenAI chat converted to and from generateContent, which Gemini clients get unchanged. */
export const geminiProvider: ChatProviderDefinition = {
  id: 'gemini',
  operations: ['chat', 'embeddings'],
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
  // Google's OpenAI-compatible endpoint (`/v1beta/openai/`) serves OpenAI's embeddings.
  passthrough: {
    request: (path, body, context) => ({
      method: 'POST',
      url: geminiOpenAiUrl(context, path),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${context.key}` },
      body: JSON.stringify({ ...body, model: context.upstreamModel }),
    }),
    usage: openAiUsageOf,
  },
  gemini: {
    request: (method, body, context) => ({
      method: 'POST',
      url: geminiMethodUrl(context, method),
      headers: geminiHeaders(context.key),
      body: JSON.stringify(body),
    }),
  },
  models: {
    request: (context) => ({ method: 'GET', url: geminiModelsUrl(context), headers: geminiHeaders(context.key) }),
    parse: (json) => parseUpstream(modelListSchema, json, 'gemini').models.map((model) => model.name.replace(/^models\//, '')),
  },
  error: geminiError,
};
