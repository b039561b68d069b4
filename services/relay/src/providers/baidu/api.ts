import { z } from 'zod';
import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext, TokenExchange } from '../types.js';
import { baseUrlOf, ChannelConfigurationError } from '../shared/url.js';

/**
 * The ERNIE model names and the wenxinworkshop endpoint each is served at (as the established
 * product maps them); any other name is taken as the endpoint itself (a custom deployment's, or
 * an endpoint named directly).
 */
const endpoints: Record<string, string> = {
  'ERNIE-4.0': 'completions_pro',
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-Bot': 'completions',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-3.5-8K-0205': 'ernie-3.5-8k-0205',
  'ERNIE-3.5-8K-1222': 'ernie-3.5-8k-1222',
  'ERNIE-3.5-4K-0205': 'ernie-3.5-4k-0205',
  'ERNIE-Bot-8K': 'ernie_bot_8k',
  'ERNIE-Bot-turbo': 'eb-instant',
  'ERNIE-Speed': 'ernie_speed',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Speed-128K': 'ernie-speed-128k',
  'ERNIE-Lite-8K': 'ernie-lite-8k',
  'ERNIE-Lite-8K-0308': 'ernie-lite-8k',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Tiny-8K': 'ernie-tiny-8k',
  'BLOOMZ-7B': 'bloomz_7b1',
  'Embedding-V1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

/** The endpoint that serves a model name. */
export function baiduEndpoint(model: string): string {
  return Object.hasOwn(endpoints, model) ? endpoints[model]! : model;
}

/** The channel's base URL (the host, `https://aip.baidubce.com` by default); a pasted API path is dropped. */
function baiduBase(context: Pick<ProviderContext, 'channel'>): string {
  return baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Baidu]).replace(/\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop$/, '');
}

/** `{base}/rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/{endpoint}`; `authorize` adds the access token. */
export function baiduUrl(context: Pick<ProviderContext, 'channel'>, kind: 'chat' | 'embeddings', model: string): string {
  return `${baiduBase(context)}/rpc/2.0/ai_custom/v1/wenxinworkshop/${kind}/${encodeURIComponent(baiduEndpoint(model))}`;
}

export const BAIDU_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json', Accept: 'application/json' };

/** A Baidu key is `<API Key>|<Secret Key>` (the application's pair). */
export function baiduCredentials(key: string): { apiKey: string; secretKey: string } {
  const parts = key.trim().split('|');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new ChannelConfigurationError('channel_key_malformed', 'a Baidu key has the form "<API Key>|<Secret Key>"');
  }
  return { apiKey: parts[0], secretKey: parts[1] };
}

/** A token with no stated lifetime is renewed after this (Baidu's are valid for 30 days). */
const DEFAULT_TOKEN_LIFETIME_S = 3600;

const tokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive().nullish() });
const tokenRefusalSchema = z.object({ error: z.string(), error_description: z.string().nullish() });

/**
 * Baidu's OAuth 2.0 client-credentials exchange: `POST {base}/oauth/2.0/token` with the grant and
 * the application's pair in the query, as Baidu documents it (the relay logs no exchange URL; its
 * errors name the origin and path only). The body is an empty JSON object, since some servers
 * refuse a JSON POST without any (the mock upstream among them). The answer is `{access_token, expires_in}`, or `{error, error_description}`
 * ("unknown client id": the API Key; "Client authentication failed": the Secret Key).
 */
export function baiduTokenExchange(context: Pick<ProviderContext, 'channel' | 'key'>): TokenExchange {
  const { apiKey, secretKey } = baiduCredentials(context.key);
  const query = new URLSearchParams({ grant_type: 'client_credentials', client_id: apiKey, client_secret: secretKey });
  return {
    scope: '',
    request: { method: 'POST', url: `${baiduBase(context)}/oauth/2.0/token?${query.toString()}`, headers: { ...BAIDU_HEADERS }, body: '{}' },
    parse(json, now) {
      const refused = tokenRefusalSchema.safeParse(json);
      if (refused.success) {
        const { error, error_description: description } = refused.data;
        throw new Error(`Baidu refused the key: ${error}${description ? ` (${description})` : ''}`);
      }
      const answer = tokenSchema.safeParse(json);
      if (!answer.success) throw new Error('Baidu answered the token exchange without an access_token');
      return { token: answer.data.access_token, expiresAt: now + (answer.data.expires_in ?? DEFAULT_TOKEN_LIFETIME_S) * 1000 };
    },
  };
}

/** The built call with the channel's access token in its query (`access_token`, as Baidu takes it). */
export function withAccessToken(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('access_token', token);
  return parsed.toString();
}
