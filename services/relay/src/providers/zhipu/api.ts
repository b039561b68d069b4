import { createHmac } from 'node:crypto';
import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, ChannelConfigurationError } from '../shared/url.js';

/** How long a signed token is valid. One is signed for every call (an HMAC is cheap), so none leaves about to lapse. */
export const ZHIPU_TOKEN_TTL_MS = 5 * 60_000;

/**
 * `{base}/api/paas/v3/model-api/{model}/invoke` (a whole answer) or `.../sse-invoke` (a stream).
 * The base is the host (`https://open.bigmodel.cn` unless the channel's base_url says otherwise); a
 * base pasted with the API path loses it, since the URL carries it.
 */
export function zhipuUrl(context: Pick<ProviderContext, 'channel'>, model: string, stream: boolean): string {
  const base = baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Zhipu]).replace(/\/api\/paas\/v3(?:\/model-api)?$/, '');
  return `${base}/api/paas/v3/model-api/${encodeURIComponent(model)}/${stream ? 'sse-invoke' : 'invoke'}`;
}

/** JSON in; the token is added by `authorize`. */
export function zhipuHeaders(stream: boolean): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: stream ? 'text/event-stream' : 'application/json' };
}

/** A Zhipu key is `<id>.<secret>`: the id names the key in the token, the secret signs it. */
export function zhipuCredentials(key: string): { id: string; secret: string } {
  const trimmed = key.trim();
  const dot = trimmed.indexOf('.');
  if (dot <= 0 || dot === trimmed.length - 1) throw new ChannelConfigurationError('channel_key_malformed', 'a Zhipu v3 key has the form "<id>.<secret>"');
  return { id: trimmed.slice(0, dot), secret: trimmed.slice(dot + 1) };
}

/**
 * The token Zhipu's v3 API takes in `Authorization` (as is, no scheme): a JWT signed HS256 with
 * the key's secret, header `{alg: HS256, sign_type: SIGN}`, claims `api_key` (the key's id), `exp`
 * and `timestamp`, both in epoch milliseconds.
 */
export function zhipuToken(key: string, now: number): string {
  const { id, secret } = zhipuCredentials(key);
  const header = base64Url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN' }));
  const payload = base64Url(JSON.stringify({ api_key: id, exp: now + ZHIPU_TOKEN_TTL_MS, timestamp: now }));
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

function base64Url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
