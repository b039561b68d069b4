import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError, UpstreamAnswerError, errorTypeOfStatus } from '../shared/upstream-error.js';

/** Zhipu's error body: `{code, msg, success: false}` (v3 answers and errors share the envelope). */
const zhipuErrorSchema = z.object({ code: z.union([z.number(), z.string()]).nullish(), msg: z.string(), success: z.boolean().nullish() });

/** What a Zhipu error code means: the kind channels' rules read, and the HTTP status it stands for. */
interface Meaning {
  type: string;
  status: number;
}

const authentication: Meaning = { type: 'authentication_error', status: 401 };
const permission: Meaning = { type: 'permission_error', status: 403 };
const rateLimit: Meaning = { type: 'rate_limit_error', status: 429 };
const invalid: Meaning = { type: 'invalid_request_error', status: 400 };
const notFound: Meaning = { type: 'not_found_error', status: 404 };
const server: Meaning = { type: 'server_error', status: 502 };

/**
 * Zhipu's error codes (its error-code table): 1000-1004 the token (missing, invalid, expired), 11xx
 * the account (1113: in arrears), 12xx the call (1211 unknown model, 1220 no access, 1221/1222
 * retired or unknown API, 1230/1234 Zhipu's own trouble), 1261 prompt too long, 1301 unsafe
 * content, 1302-1305 rate and daily limits.
 */
export function zhipuCodeMeaning(code: number): Meaning | null {
  if (code >= 1000 && code <= 1004) return authentication;
  if (code === 1113) return { type: 'insufficient_quota', status: 402 };
  if (code >= 1100 && code < 1200) return permission;
  if (code === 1211 || code === 1221 || code === 1222) return notFound;
  if (code === 1220) return permission;
  if (code === 1230 || code === 1234) return server;
  if (code >= 1200 && code < 1300) return invalid;
  if (code >= 1302 && code <= 1305) return rateLimit;
  if (code >= 1300 && code < 1400) return invalid;
  return null;
}

/** Maps a Zhipu error answer (any status) to our error, its kind from the code, else from the status. */
export function zhipuError(status: number, bodyText: string): ProviderError {
  const parsed = zhipuErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { code, msg } = parsed.data;
  const meaning = code == null ? null : zhipuCodeMeaning(Number(code));
  return providerError(msg, meaning?.type ?? errorTypeOfStatus(status) ?? (status >= 500 ? 'server_error' : 'upstream_error'), code ?? status);
}

/**
 * Zhipu answered HTTP 200 with an error (`success: false`, or a task that failed). Thrown by the
 * answer converters, in the platform's taxonomy: `statusCode` is the HTTP status the error stands
 * for, which the client is answered with (a 5xx without the upstream's words); the relay takes
 * it as the channel's failure (UpstreamAnswerError).
 */
export class ZhipuAnswerError extends UpstreamAnswerError {
  constructor(code: string | number, message: string) {
    const meaning = zhipuCodeMeaning(Number(code)) ?? server;
    const error = providerError(message, meaning.type, code);
    super(error, meaning.status);
  }
}
