import type { RoutingChannel } from '@aigw/contracts';

/**
 * The channel lacks a setting its type needs (a base URL, an account id, a region): it cannot be
 * called. Raised when the request is built; the relay reports it as the channel's failure and
 * moves on to another channel, like an unreachable upstream.
 */
export class ChannelConfigurationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChannelConfigurationError';
  }
}

/** The channel has no base_url and its type has no default. */
export class MissingBaseUrlError extends ChannelConfigurationError {
  constructor(channelId: number) {
    super('channel_base_url_missing', `channel ${channelId} has no base_url and its type has no default one`);
    this.name = 'MissingBaseUrlError';
  }
}

/** The channel's base_url, else the type's default, without trailing slashes. */
export function baseUrlOf(channel: RoutingChannel, defaultBaseUrl: string | undefined): string {
  const base = channel.base_url.trim() || defaultBaseUrl;
  if (!base) throw new MissingBaseUrlError(channel.id);
  return base.replace(/\/+$/, '');
}

/**
 * `base` + `versionPath` + `path`, except that a base already ending in the version path
 * (`https://host/v1`, as admins often paste it) does not get it twice.
 */
export function versionedUrl(base: string, versionPath: string, path: string): string {
  return base.endsWith(versionPath) ? `${base}${path}` : `${base}${versionPath}${path}`;
}
