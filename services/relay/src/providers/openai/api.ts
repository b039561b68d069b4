import type { ProviderContext } from '../types.js';

/** Where an OpenAI-compatible upstream keeps its API, relative to its base URL. */
export interface OpenAiPaths {
  /** Version prefix, `/v1` for most; `/api/paas/v4` for Zhipu v4, `''` for Perplexity. */
  versionPath: string;
  /** Chat path under the version prefix. */
  chatPath: string;
}

export const defaultOpenAiPaths: OpenAiPaths = { versionPath: '/v1', chatPath: '/chat/completions' };

/** Bearer auth (left out for keyless upstreams such as a local Ollama), the organization when set, and extras. */
export function openAiHeaders(context: Pick<ProviderContext, 'channel' | 'key'>, extraHeaders: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...extraHeaders };
  if (context.key !== '') headers.Authorization = `Bearer ${context.key}`;
  if (context.channel.openai_organization) headers['OpenAI-Organization'] = context.channel.openai_organization;
  return headers;
}
