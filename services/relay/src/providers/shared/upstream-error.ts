import { z } from 'zod';
import { AppError } from '@aigw/platform';
import type { ProviderError } from '../types.js';

/** Upstream messages are cut to this length: enough to act on, never a whole HTML page. */
export const MAX_ERROR_MESSAGE_LENGTH = 1000;

const code = z.union([z.string(), z.number()]).nullish();
const errorObjectSchema = z.object({ message: z.string().nullish(), type: z.string().nullish(), code, status: z.string().nullish() });

/** The error shapes seen across OpenAI-compatible upstreams and the proxies in front of them. */
const errorBodySchema = z.object({
  error: z.union([errorObjectSchema, z.string()]).nullish(),
  message: z.string().nullish(),
  msg: z.string().nullish(),
  error_msg: z.string().nullish(),
  detail: z.string().nullish(),
  type: z.string().nullish(),
  code,
});

/** Parses an error body as JSON; an array (Gemini's streamGenerateContent without SSE) yields its first element. */
export function parseErrorJson(bodyText: string): unknown {
  try {
    const json: unknown = JSON.parse(bodyText);
    return Array.isArray(json) ? json[0] : json;
  } catch {
    return undefined;
  }
}

/**
 * Any upstream error body, normalised: the known JSON shapes, else the text itself. The result
 * carries only what the body said, never the request URL (Gemini-style `?key=` URLs hold the key).
 */
export function normaliseUpstreamError(status: number, bodyText: string): ProviderError {
  const parsed = errorBodySchema.safeParse(parseErrorJson(bodyText));
  if (parsed.success) {
    const body = parsed.data;
    if (typeof body.error === 'object' && body.error?.message) {
      const { message, type, code: errorCode, status: errorStatus } = body.error;
      return providerError(message, type ?? errorStatus ?? 'upstream_error', errorCode ?? errorStatus ?? type ?? status);
    }
    const message = (typeof body.error === 'string' ? body.error : null) ?? body.message ?? body.msg ?? body.error_msg ?? body.detail;
    if (message) return providerError(message, body.type ?? 'upstream_error', body.code ?? status);
  }
  const text = bodyText.trim();
  return providerError(text === '' ? `upstream answered HTTP ${status} with an empty body` : text, 'upstream_error', status);
}

/** Builds the normalised error: message redacted and cut, code as a string. */
export function providerError(message: string, type: string, code: string | number): ProviderError {
  return { message: truncate(redactSecrets(message)), type, code: String(code) };
}

/** Credentials that some upstreams echo inside URLs in their messages. */
function redactSecrets(message: string): string {
  return message.replace(/([?&](?:key|api_key|api-key|access_token|token)=)[^&\s"'<>]+/gi, '$1***');
}

function truncate(message: string): string {
  return message.length <= MAX_ERROR_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_ERROR_MESSAGE_LENGTH)}…`;
}

/**
 * An error the upstream answered inside a 2xx body (Baidu, Tencent and Zhipu answer every error
 * so). Thrown by answer converters; the relay takes it as that channel's failure, as it takes a
 * non-2xx answer: reported to channels (auto-ban reads `error.type`), retried on another channel
 * when `statusCode` allows, and the client answered with it only when no channel served.
 * `staleCredentials`: the upstream refused an access token the relay cached (Baidu's codes 110,
 * 111), so the cached token is dropped and the next call exchanges a new one.
 */
export class UpstreamAnswerError extends AppError {
  constructor(
    readonly error: ProviderError,
    status: number,
    readonly staleCredentials = false,
  ) {
    super(error.message, error.code, status, false);
  }

  get type(): string {
    return this.error.type;
  }
}

const typesByStatus: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required',
  403: 'permission_error',
  404: 'not_found_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** The error kind an HTTP status stands for (auto-ban and retries read it), for upstreams whose body names none; undefined for others. */
export function errorTypeOfStatus(status: number): string | undefined {
  return typesByStatus[status];
}
