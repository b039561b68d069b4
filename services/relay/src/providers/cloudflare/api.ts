import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, ChannelConfigurationError } from '../shared/url.js';

/** A Cloudflare channel without its account id (the channel's `other`): it cannot be called. Raised when the request is built. */
export class MissingAccountIdError extends ChannelConfigurationError {
  constructor(channelId: number) {
    super('channel_account_id_missing', `channel ${channelId} (Cloudflare Workers AI) has no account id: set it in the channel's "other" field`);
    this.name = 'MissingAccountIdError';
  }
}

/**
 * Workers AI's OpenAI-compatible API: `{base}/client/v4/accounts/{account id}/ai/v1{path}`, the
 * account id from the channel's `other`, the base `https://api.cloudflare.com` unless the channel's
 * base_url says otherwise (an AI Gateway in front, a proxy).
 */
export function cloudflareUrl(context: Pick<ProviderContext, 'channel'>, path: string): string {
  return `${accountBase(context)}/ai/v1${path}`;
}

/** The model catalogue of the account's Workers AI: `.../ai/models/search` (text generation and embeddings). */
export function cloudflareModelsUrl(context: Pick<ProviderContext, 'channel'>): string {
  return `${accountBase(context)}/ai/models/search?per_page=1000`;
}

function accountBase(context: Pick<ProviderContext, 'channel'>): string {
  const account = context.channel.other.trim();
  if (account === '') throw new MissingAccountIdError(context.channel.id);
  const base = baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Cloudflare]);
  return `${base}/client/v4/accounts/${encodeURIComponent(account)}`;
}

/** Bearer auth (an API token with Workers AI permission), JSON. */
export function cloudflareHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
}
