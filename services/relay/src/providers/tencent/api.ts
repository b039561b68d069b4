import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf, ChannelConfigurationError } from '../shared/url.js';

/** The Hunyuan API this provider speaks: TencentCloud API 3.0 action and version. */
export const HUNYUAN_ACTION = 'ChatCompletions';
export const HUNYUAN_VERSION = '2023-09-01';
/** The service name in the signature's credential scope (the first label of hunyuan.tencentcloudapi.com). */
export const HUNYUAN_SERVICE = 'hunyuan';

/** TencentCloud API 3.0 takes every action at `/` of the service's host (`https://hunyuan.tencentcloudapi.com` unless base_url says otherwise). */
export function tencentUrl(context: Pick<ProviderContext, 'channel'>): string {
  return `${baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Tencent])}/`;
}

/** The action's headers; `authorize` adds the timestamp, the region and the signature. */
export function tencentHeaders(): Record<string, string> {
  return { 'Content-Type': 'application/json', 'X-TC-Action': HUNYUAN_ACTION, 'X-TC-Version': HUNYUAN_VERSION };
}

/** A Tencent key is `<AppId>|<SecretId>|<SecretKey>` (the established product's order); the AppId is not needed to sign. */
export function tencentCredentials(key: string): { appId: string; secretId: string; secretKey: string } {
  const parts = key.trim().split('|');
  if (parts.length !== 3 || parts.some((part) => part === '')) {
    throw new ChannelConfigurationError('channel_key_malformed', 'a Tencent key has the form "<AppId>|<SecretId>|<SecretKey>"');
  }
  const [appId, secretId, secretKey] = parts as [string, string, string];
  return { appId, secretId, secretKey };
}

/** The channel's region (its `other` setting), sent as X-TC-Region when set; Hunyuan does not need one. */
export function tencentRegion(context: Pick<ProviderContext, 'channel'>): string | undefined {
  return context.channel.other.trim() || undefined;
}
