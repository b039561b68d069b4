import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/**
 * Jina's error body is FastAPI's: `{"detail": "..."}`, or for a body that fails validation
 * `{"detail": [{"loc": [...], "msg": "...", "type": "..."}]}`.
 */
const jinaErrorSchema = z.object({
  detail: z.union([z.string(), z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])).nullish(), msg: z.string() })).min(1)]),
});

export function jinaError(status: number, bodyText: string): ProviderError {
  const parsed = jinaErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { detail } = parsed.data;
  if (typeof detail === 'string') return providerError(detail, 'upstream_error', status);
  const message = detail.map((issue) => (issue.loc?.length ? `${issue.loc.join('.')}: ${issue.msg}` : issue.msg)).join('; ');
  return providerError(message, 'invalid_request_error', status);
}
