import { OPENAI_FORMAT_OPERATIONS, type BalanceQuery, type ProviderContext, type ChatProviderDefinition, type UpstreamRequest } from '../types.js';
import { openAiDashboardBalance } from '../shared/balance.js';
import { openAiUsageOf } from '../shared/usage.js';
import { baseUrlOf, versionedUrl } from '../shared/url.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { z } from 'zod';
import type { OperationName } from '../../operations/types.js';
import { defaultOpenAiPaths, openAiHeaders } from './api.js';
import { OpenAiStreamConverter, openAiChatBody, openAiChatResponse } from './chat.js';
import { openAiError } from './error.js';

export interface OpenAiCompatibleOptions {
  /** Stable provider name, for logs and fixtures. */
  id: string;
  /** Used when the channel's base_url is empty; without one the channel must set it. */
  defaultBaseUrl?: string;
  /** Version prefix under the base URL; `/v1` unless the upstream differs. */
  versionPath?: string;
  /** Chat path under the version prefix; `/chat/completions` unless the upstream differs. */
  chatPath?: string;
  /** Headers the upstream wants on every call (OpenRouter's app attribution). */
  extraHeaders?: Record<string, string>;
  /** Whether the upstream honours `stream_options.include_usage` (docs/compatibility.md section 2.3). */
  streamUsage: boolean;
  /** What it serves, when more than OpenAI's own operations (rerank, on the upstreams that have it). */
  operations?: readonly OperationName[];
  /** How its balance is read: OpenAI's billing dashboards unless it has its own query. */
  balance?: BalanceQuery;
}

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })) });

/**
 * An upstream that speaks OpenAI's protocol is configuration, not code (style rule 10,
 * CONTRIBUTING.md): its base URL, paths and headers. Chat, embeddings, completions and moderations
 * go through unchanged but for the model name.
 */
export function openAiCompatible(options: OpenAiCompatibleOptions): ChatProviderDefinition {
  const versionPath = options.versionPath ?? defaultOpenAiPaths.versionPath;
  const chatPath = options.chatPath ?? defaultOpenAiPaths.chatPath;
  const url = (context: Pick<ProviderContext, 'channel'>, path: string) => versionedUrl(baseUrlOf(context.channel, options.defaultBaseUrl), versionPath, path);
  const post = (context: ProviderContext, path: string, body: Record<string, unknown>): UpstreamRequest => ({
    method: 'POST',
    url: url(context, path),
    headers: openAiHeaders(context, options.extraHeaders),
    body: JSON.stringify(body),
  });

  // No JSON content type on a form (its boundary is set when it is encoded) or a GET.
  const formHeaders = (context: ProviderContext) => {
    const { 'Content-Type': _json, ...rest } = openAiHeaders(context, options.extraHeaders);
    return rest;
  };

  return {
    id: options.id,
    operations: options.operations ?? OPENAI_FORMAT_OPERATIONS,
    streamUsage: options.streamUsage,
    chat: {
      request: (body, context) => post(context, chatPath, openAiChatBody(body, context, options.streamUsage)),
      response: (json) => openAiChatResponse(json, options.id),
      stream: () => new OpenAiStreamConverter(),
    },
    passthrough: {
      // `/v1/embeddings` -> `{base}{versionPath}/embeddings`; only the model is swapped.
      request: (path, body, context) => post(context, path.slice('/v1'.length), Object.assign({}, body, { model: context.upstreamModel })),
      form: (path, form, context) => ({ method: 'POST', url: url(context, path.slice('/v1'.length)), headers: formHeaders(context), form }),
      get: (path, context) => ({ method: 'GET', url: url(context, path.slice('/v1'.length)), headers: formHeaders(context) }),
      usage: openAiUsageOf,
    },
    balance: options.balance ?? openAiDashboardBalance(options.defaultBaseUrl),
    models: {
      request: (context) => ({ method: 'GET', url: url(context, '/models'), headers: openAiHeaders(context, options.extraHeaders) }),
      parse: (json) => parseUpstream(modelListSchema, json, options.id).data.map((model) => model.id),
    },
    error: openAiError,
  };
}
