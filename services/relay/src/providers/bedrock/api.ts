import type { RoutingChannel } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { ChannelConfigurationError } from '../shared/url.js';

/** A Bedrock channel's AWS credentials and region. */
export interface BedrockCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
}

/** AWS region names: `us-east-1`, `eu-central-2`, `us-gov-west-1`, ... */
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d$/;

/**
 * The key field as the established product takes it, `AK|SK|region`, with an optional fourth
 * part, a session token (temporary credentials). The region may instead be the channel's `other`
 * (the key's wins). Raised when the call is built: the channel cannot be called as configured.
 */
export function bedrockCredentials(channel: Pick<RoutingChannel, 'id' | 'other'>, key: string): BedrockCredentials {
  const [accessKeyId = '', secretAccessKey = '', keyRegion = '', sessionToken = ''] = key.split('|').map((part) => part.trim());
  if (!accessKeyId || !secretAccessKey) {
    throw new ChannelConfigurationError('channel_key_malformed', `channel ${channel.id} (AWS Bedrock) needs its key as "access key|secret key|region"`);
  }
  const region = keyRegion || channel.other.trim();
  if (!REGION.test(region)) {
    throw new ChannelConfigurationError(
      'channel_region_missing',
      `channel ${channel.id} (AWS Bedrock) has no valid region: give it in the key or the channel's "other" field`,
    );
  }
  return { accessKeyId, secretAccessKey, region, ...(sessionToken ? { sessionToken } : {}) };
}

/** The runtime endpoint: the channel's base_url (a VPC endpoint, a proxy) or the region's public host. */
export function runtimeBase(context: Pick<ProviderContext, 'channel' | 'key'>): string {
  const override = context.channel.base_url.trim().replace(/\/+$/, '');
  return override || `https://bedrock-runtime.${bedrockCredentials(context.channel, context.key).region}.amazonaws.com`;
}

/** The control-plane endpoint (the model list): under the base_url when one is set. */
export function controlBase(context: Pick<ProviderContext, 'channel' | 'key'>): string {
  const override = context.channel.base_url.trim().replace(/\/+$/, '');
  return override || `https://bedrock.${bedrockCredentials(context.channel, context.key).region}.amazonaws.com`;
}

/** A model id in a path: `anthropic.claude-3-5-sonnet-20241022-v2:0` has a colon, ARNs have slashes. */
export const modelPath = (model: string) => `/model/${encodeURIComponent(model)}`;

/** Anthropic's models speak the Messages API through InvokeModel; every other model the Converse API. */
export function isAnthropicModel(model: string): boolean {
  return /(?:^|[.:/])anthropic\./.test(model) || model.toLowerCase().includes('claude');
}

/** The `anthropic_version` Bedrock's Messages bodies carry. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
