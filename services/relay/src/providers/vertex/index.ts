import type { ChatProviderDefinition, ProviderContext, UpstreamRequest } from '../types.js';
import { anthropicChatBody, anthropicChatResponse } from '../anthropic/chat.js';
import { AnthropicStreamConverter } from '../anthropic/chat-stream.js';
import { geminiChatBody, geminiChatResponse } from '../gemini/chat.js';
import { GeminiStreamConverter } from '../gemini/chat-stream.js';
import { geminiError } from '../gemini/error.js';
import { openAiChatBody, openAiChatResponse, OpenAiStreamConverter } from '../openai/chat.js';
import { familyOf, locationBase, publisherUrl, VERTEX_ANTHROPIC_VERSION } from './api.js';
import { vertexTokenExchange } from './auth.js';

const json = (url: string, body: Record<string, unknown>, warnings: string[] = []): UpstreamRequest => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  ...(warnings.length > 0 ? { warnings } : {}),
});

/** Claude's body as Vertex takes it: no model (it is in the path), Vertex's `anthropic_version`; the stream flag stays. */
function claudeBody(body: Record<string, unknown>): Record<string, unknown> {
  const { model: _model, ...rest } = body;
  return { ...rest, anthropic_version: VERTEX_ANTHROPIC_VERSION };
}

const claudeUrl = (context: ProviderContext) => publisherUrl(context, 'anthropic', context.stream ? 'streamRawPredict' : 'rawPredict');
const geminiUrl = (context: ProviderContext, method: string) =>
  `${publisherUrl(context, 'google', method)}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;

/**
 * Google Vertex AI (channel type 41): the key is a service-account JSON key, exchanged for an
 * OAuth2 access token (`authorize`; cached per channel until shortly before it expires); the
 * region is the channel's `other` (text, or JSON per model). Gemini models through
 * generateContent (Gemini clients natively), Claude through Anthropic's Messages API on Vertex
 * (`rawPredict`; Messages clients natively, cache_control kept), and any other model through the
 * OpenAI-compatible MaaS endpoint (`endpoints/openapi/chat/completions`, `publisher/model` ids).
 */
export const vertexProvider: ChatProviderDefinition = {
  id: 'vertex',
  operations: ['chat'],
  // All three report usage in their streams (the MaaS endpoint when asked, which the relay does).
  streamUsage: true,
  chat: {
    request(body, context) {
      switch (familyOf(context.upstreamModel)) {
        case 'anthropic': {
          const converted = anthropicChatBody(body, context);
          return json(claudeUrl(context), claudeBody(converted.body), converted.warnings);
        }
        case 'gemini': {
          const converted = geminiChatBody(body, context);
          return json(geminiUrl(context, context.stream ? 'streamGenerateContent' : 'generateContent'), converted.body, converted.warnings);
        }
        case 'openai':
          return json(`${locationBase(context)}/endpoints/openapi/chat/completions`, openAiChatBody(body, context, true));
      }
    },
    response(answer, context) {
      const family = familyOf(context.upstreamModel);
      return family === 'anthropic'
        ? anthropicChatResponse(answer, context)
        : family === 'gemini'
          ? geminiChatResponse(answer, context)
          : openAiChatResponse(answer, 'vertex');
    },
    stream(context) {
      const family = familyOf(context.upstreamModel);
      return family === 'anthropic'
        ? new AnthropicStreamConverter(context)
        : family === 'gemini'
          ? new GeminiStreamConverter(context)
          : new OpenAiStreamConverter();
    },
  },
  messages: {
    serves: (context) => familyOf(context.upstreamModel) === 'anthropic',
    request: (body, context) => json(claudeUrl(context), claudeBody(body)),
  },
  gemini: {
    serves: (context) => familyOf(context.upstreamModel) === 'gemini',
    request: (method, body, context) => json(geminiUrl(context, method), body),
  },
  async authorize(request, context, tools) {
    const token = await tools.accessToken(vertexTokenExchange(context));
    return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
  },
  error: geminiError,
};
