import { OPENAI_FORMAT_OPERATIONS, type ChatProviderDefinition } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { OpenAiStreamConverter, openAiChatBody, openAiChatResponse } from '../openai/chat.js';
import { openAiError } from '../openai/error.js';
import { realtimeBetaHeader, webSocketUrl } from '../openai/index.js';
import { baseUrlOf } from '../shared/url.js';
import { azureDeployment, azureHeaders, azureResponsesUrl, azureUrl } from './api.js';

/** The api-version of a realtime session when the channel names none (`other`). */
export const AZURE_REALTIME_API_VERSION = '2024-10-01-preview';

/**
 * Azure OpenAI (channel type 3): OpenAI's protocol and error shape behind Azure's deployment
 * URLs and `api-key` header. No model list: Azure lists deployments only through its management
 * API, which an API key cannot call.
 */
export const azureProvider: ChatProviderDefinition = {
  id: 'azure',
  // Azure OpenAI's image deployments (DALL·E 3, gpt-image-1): generations and edits (no
  // variations); its audio deployments (tts, whisper, gpt-4o-transcribe): speech, transcriptions
  // and translations; the Responses API; the Realtime API (a WebSocket).
  operations: [...OPENAI_FORMAT_OPERATIONS, 'images', 'image-edits', 'audio-speech', 'audio-transcriptions', 'audio-translations', 'responses', 'realtime'],
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
    request: (path, body, context) =>
      path.startsWith('/v1/responses')
        ? {
            method: 'POST',
            url: azureResponsesUrl(context, path),
            headers: azureHeaders(context.key),
            body: JSON.stringify({ ...body, model: azureDeployment(context.upstreamModel) }),
          }
        : {
            method: 'POST',
            url: azureUrl(context, path.slice('/v1/'.length)),
            headers: azureHeaders(context.key),
            body: JSON.stringify({ ...body, model: context.upstreamModel }),
          },
    form: (path, form, context) => ({ method: 'POST', url: azureUrl(context, path.slice('/v1/'.length)), headers: { 'api-key': context.key }, form }),
    // Only stored responses are read back.
    get: (path, context) => ({ method: 'GET', url: azureResponsesUrl(context, path), headers: { 'api-key': context.key } }),
    usage: openAiUsageOf,
  },
  // `wss://{host}/openai/realtime?api-version=...&deployment=...`, the key in `api-key`.
  realtime: {
    connect: (context) => {
      const version = encodeURIComponent(context.channel.other.trim() || AZURE_REALTIME_API_VERSION);
      const deployment = encodeURIComponent(azureDeployment(context.upstreamModel));
      return {
        url: webSocketUrl(`${baseUrlOf(context.channel, undefined)}/openai/realtime?api-version=${version}&deployment=${deployment}`),
        headers: { 'api-key': context.key, ...realtimeBetaHeader(context) },
      };
    },
  },
  error: openAiError,
};
