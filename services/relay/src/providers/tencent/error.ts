import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError, UpstreamAnswerError } from '../shared/upstream-error.js';

/** TencentCloud API 3.0's error: `{Response: {Error: {Code, Message}, RequestId}}`, with status 200 (Tencent's way for every API error). */
export const tencentErrorObjectSchema = z.object({ Code: z.union([z.string(), z.number()]), Message: z.string().nullish() });
export const tencentErrorSchema = z.object({ Response: z.object({ Error: tencentErrorObjectSchema, RequestId: z.string().nullish() }) });

interface Meaning {
  type: string;
  status: number;
}

/**
 * What a TencentCloud error code means, by its family: AuthFailure.* the signature or the key
 * (SignatureFailure: a wrong SecretKey; SecretIdNotFound; SignatureExpire: the clock),
 * UnauthorizedOperation.* and a service not activated, the account in arrears or its resource
 * pack spent, the request and rate limits, the request's own faults, and Tencent's.
 */
export function tencentCodeMeaning(code: string): Meaning {
  const family = code.split('.')[0] ?? '';
  if (family === 'AuthFailure') return { type: 'authentication_error', status: 401 };
  if (family === 'UnauthorizedOperation' || code === 'FailedOperation.ServiceNotActivated') return { type: 'permission_error', status: 403 };
  if (/Arrears|Exhaust|ResourceInsufficient|ServiceStop/.test(code)) return { type: 'insufficient_quota', status: 402 };
  if (family === 'RequestLimitExceeded' || family === 'LimitExceeded') return { type: 'rate_limit_error', status: 429 };
  if (['InvalidParameter', 'InvalidParameterValue', 'MissingParameter', 'UnknownParameter', 'UnsupportedOperation', 'UnsupportedProtocol'].includes(family)) {
    return { type: 'invalid_request_error', status: 400 };
  }
  if (family === 'InvalidAction' || family === 'ResourceNotFound' || family === 'UnsupportedRegion') return { type: 'not_found_error', status: 404 };
  return { type: 'server_error', status: 502 };
}

/** Maps a Tencent error answer (any status) to our error, its kind from Tencent's code. */
export function tencentError(status: number, bodyText: string): ProviderError {
  const parsed = tencentErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { Code: code, Message: message } = parsed.data.Response.Error;
  return providerError(message || String(code), tencentCodeMeaning(String(code)).type, code);
}

/**
 * Tencent answered HTTP 200 with `Response.Error`. Thrown by the answer converters: `statusCode`
 * is the HTTP status the error stands for (the platform's taxonomy), which the client is answered
 * with (a 5xx without the upstream's words); the relay takes it as the channel's
 * failure (UpstreamAnswerError).
 */
export class TencentAnswerError extends UpstreamAnswerError {
  constructor(code: string | number, message: string | null | undefined) {
    const meaning = tencentCodeMeaning(String(code));
    const error = providerError(message || String(code), meaning.type, code);
    super(error, meaning.status);
  }
}
