import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { baseUrlOf } from '../shared/url.js';

/** DashScope's endpoints the relay calls: chat and embeddings in its OpenAI-compatible mode, rerank and image tasks in its native API. */
export type DashScopePath =
  | '/compatible-mode/v1/chat/completions'
  | '/compatible-mode/v1/embeddings'
  | '/api/v1/services/rerank/text-rerank/text-rerank'
  | '/api/v1/services/aigc/text2image/image-synthesis';

/**
 * `{base}{path}`. The base is the host (`https://dashscope.aliyuncs.com` unless the channel's
 * base_url says otherwise: the international `dashscope-intl` host, a workspace domain, a proxy);
 * a base pasted with `/compatible-mode/v1` or `/api/v1` loses it, since the paths carry theirs.
 */
export function dashScopeUrl(context: Pick<ProviderContext, 'channel'>, path: DashScopePath): string {
  return `${dashScopeBase(context)}${path}`;
}

/** The status of an async task (`GET /api/v1/tasks/{task_id}`), the id encoded: it comes from the upstream's answer. */
export function dashScopeTaskUrl(context: Pick<ProviderContext, 'channel'>, taskId: string): string {
  return `${dashScopeBase(context)}/api/v1/tasks/${encodeURIComponent(taskId)}`;
}

function dashScopeBase(context: Pick<ProviderContext, 'channel'>): string {
  return baseUrlOf(context.channel, channelDefaultBaseUrls[ChannelType.Ali]).replace(/\/(?:compatible-mode|api)\/v1$/, '');
}

/** Bearer auth (a Model Studio API key), JSON. */
export function dashScopeHeaders(key: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
}
