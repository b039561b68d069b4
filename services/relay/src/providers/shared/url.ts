import type { RoutingChannel } from '@aigw/contracts';

/** The channel has no base_url and its type has no default: it cannot be called. Raised when the request is built. */
export class MissingBaseUrlError extends Error {
  readonly code = 'channel_base_url_missing';
  constructor(channelId: number) {
    super(`channel ${channelId} has no base_url and its type has no default one`);
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
