import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError, errorTypeOfStatus, UpstreamAnswerError } from '../shared/upstream-error.js';

/** The compatible mode's error body: OpenAI's `{"error": {"message", "type", "param", "code"}, "request_id"}`. */
const compatibleErrorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }),
});
/** The native API's error body: `{"code": "InvalidApiKey", "message": "Invalid API-key provided.", "request_id"}`. */
const nativeErrorSchema = z.object({ code: z.union([z.string(), z.number()]), message: z.string() });

/** DashScope's codes that say what kind of failure it is, whatever the status (an account in arrears answers 400). */
const typesByCode: Record<string, string> = {
  InvalidApiKey: 'authentication_error',
  invalid_api_key: 'authentication_error',
  Arrearage: 'insufficient_quota',
  AccessDenied: 'permission_error',
  'AccessDenied.Unpurchased': 'permission_error',
};

function typeOf(status: number, code: string | number | null | undefined, upstreamType: string | null | undefined): string {
  const byCode = code == null ? undefined : typesByCode[String(code)];
  if (byCode) return byCode;
  if (typeof code === 'string' && code.startsWith('Throttling')) return 'rate_limit_error';
  return errorTypeOfStatus(status) ?? upstreamType ?? (status >= 500 ? 'server_error' : 'upstream_error');
}

/** DashScope's two error shapes (compatible mode and native API), their kind from the code or the status; anything else as any upstream's. */
export function dashScopeError(status: number, bodyText: string): ProviderError {
  const json = parseErrorJson(bodyText);
  const compatible = compatibleErrorSchema.safeParse(json);
  if (compatible.success) {
    const { message, type, code } = compatible.data.error;
    return providerError(message, typeOf(status, code, type), code ?? status);
  }
  const native = nativeErrorSchema.safeParse(json);
  if (native.success) return providerError(native.data.message, typeOf(status, native.data.code, null), native.data.code);
  return normaliseUpstreamError(status, bodyText);
}

/**
 * The HTTP status a failed task's code stands for (DashScope answers a task's failure inside a 200
 * poll): the request's fault (a bad parameter, content inspection) is 400, not retried; the
 * channel's (its key, its account, its rate) is 401, 403 or 429 and the failure of anything else
 * 500, which another channel may serve.
 */
function taskFailureStatus(code: string): number {
  if (code === 'InvalidApiKey') return 401;
  if (code === 'Arrearage' || code.startsWith('AccessDenied')) return 403;
  if (code.startsWith('Throttling')) return 429;
  if (code.startsWith('InvalidParameter') || code === 'DataInspectionFailed' || code === 'IPInfringementSuspect') return 400;
  return 500;
}

/** A task DashScope reports failed (or an image of it that failed), as the channel's failure with the status its code stands for. */
export function dashScopeTaskError(code: string, message: string, status = taskFailureStatus(code)): UpstreamAnswerError {
  return new UpstreamAnswerError(providerError(message, typeOf(status, code, null), code), status);
}
