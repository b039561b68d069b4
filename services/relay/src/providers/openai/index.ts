import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import { openAiCompatible } from './compatible.js';
import { openAiHeaders } from './api.js';
import { OPENAI_FORMAT_OPERATIONS, type ProviderContext, type ChatProviderDefinition } from '../types.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';

const defaultBaseUrl = channelDefaultBaseUrls[ChannelType.OpenAI];

/** OpenAI itself (channel type 1). */
export const openAiProvider: ChatProviderDefinition = {
  ...openAiCompatible({
    id: 'openai',
    defaultBaseUrl,
    streamUsage: true,
    // Its image APIs (generations, edits, variations), its audio APIs (speech, transcriptions,
    // translations), the Responses API and the Realtime API (a WebSocket).
    operations: [
      ...OPENAI_FORMAT_OPERATIONS,
      'images',
      'image-edits',
      'image-variations',
      'audio-speech',
      'audio-transcriptions',
      'audio-translations',
      'responses',
      'realtime',
    ],
  }),
  // `wss://api.openai.com/v1/realtime?model=...`, the key in the Authorization header.
  realtime: {
    connect: (context) => {
      const { 'Content-Type': _json, ...headers } = openAiHeaders(context);
      const url = versionedUrl(baseUrlOf(context.channel, defaultBaseUrl), '/v1', `/realtime?model=${encodeURIComponent(context.upstreamModel)}`);
      return { url: webSocketUrl(url), headers: Object.assign({}, headers, realtimeBetaHeader(context)) };
    },
  },
};

/** The WebSocket URL of an HTTP one (http -> ws, https -> wss); ws and wss URLs stay as they are. */
export function webSocketUrl(url: string): string {
  return url.replace(/^http(s?):/i, (_match, secure: string) => `ws${secure.toLowerCase()}:`);
}

/**
 * `OpenAI-Beta: realtime=v1` when the client asked for the beta interface (the header, or the
 * browsers' `openai-beta.realtime-v1` subprotocol, forwarded as `openai-beta`); a client that did
 * not gets the generally available interface, whose events it expects.
 */
export function realtimeBetaHeader(context: Pick<ProviderContext, 'forwarded'>): Record<string, string> {
  const beta = context.forwarded?.['openai-beta'];
  return beta ? { 'OpenAI-Beta': beta } : {};
}

export { openAiCompatible, type OpenAiCompatibleOptions } from './compatible.js';
