import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf } from '../shared/url.js';

/**
 * `{base}/backend-api/codex/responses`, where the Codex CLI sends a ChatGPT account's Responses
 * calls. The base is `https://chatgpt.com` unless the channel's base_url says otherwise; a base
 * pasted with `/backend-api` or `/backend-api/codex` does not get it twice.
 */
export function codexResponsesUrl(context: Pick<ProviderContext, 'channel'>): string {
  const base = baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Codex]).replace(/\/backend-api(?:\/codex)?$/, '');
  return `${base}/backend-api/codex/responses`;
}

/**
 * The headers the ChatGPT backend wants besides the token (`authorize` adds it): the account the
 * token acts for, the Responses beta and the Codex CLI's `originator` (as the Codex CLI and the
 * established product send them), an exact JSON content type (the backend refuses parameters on
 * it) and SSE, since every call streams.
 */
export function codexHeaders(accountId: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'text/event-stream',
    'chatgpt-account-id': accountId,
    'OpenAI-Beta': 'responses=experimental',
    originator: 'codex_cli_rs',
  };
}
