import type { ProviderContext } from '../types.js';
import { baseUrlOf } from '../shared/url.js';

/** Used when the channel's `other` (the api-version) is empty. */
export const AZURE_DEFAULT_API_VERSION = '2024-12-01-preview';

/**
 * `{base}/openai/deployments/{deployment}/{task}?api-version=...`. The deployment is the model
 * name without dots: Azure forbids dots in deployment names, so `gpt-3.5-turbo` is deployed as
 * `gpt-35-turbo` (docs/compatibility.md section 2.3).
 */
export function azureUrl(context: Pick<ProviderContext, 'channel' | 'upstreamModel'>, task: string): string {
  const base = baseUrlOf(context.channel, undefined);
  const deployment = encodeURIComponent(azureDeployment(context.upstreamModel));
  const version = encodeURIComponent(context.channel.other.trim() || AZURE_DEFAULT_API_VERSION);
  return `${base}/openai/deployments/${deployment}/${task}?api-version=${version}`;
}

export function azureHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', 'api-key': key };
}

/**
 * Azure's Responses API is not per deployment: `{base}/openai/v1/responses` (the v1 API, no
 * api-version), the deployment named as the body's model; stored responses under the same path.
 */
export function azureResponsesUrl(context: Pick<ProviderContext, 'channel'>, path: string): string {
  return `${baseUrlOf(context.channel, undefined)}/openai${path}`;
}

/** The deployment name of a model (Azure forbids dots in deployment names). */
export function azureDeployment(model: string): string {
  return model.replace(/\./g, '');
}
