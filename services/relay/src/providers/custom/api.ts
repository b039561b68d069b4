import type { ProviderContext } from '../types.js';
import { MissingBaseUrlError } from '../shared/url.js';

/** A Custom channel's base_url is the full request URL, verbatim; `{model}` in it becomes the upstream model (docs/compatibility.md section 2.3). */
export function customUrl(context: Pick<ProviderContext, 'channel' | 'upstreamModel'>): string {
  const url = context.channel.base_url.trim();
  if (url === '') throw new MissingBaseUrlError(context.channel.id);
  return url.replaceAll('{model}', context.upstreamModel);
}
