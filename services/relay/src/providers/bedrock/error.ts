import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** Answers that mean the credentials are wrong or not allowed: channels' auto-disable rules read the type. */
const AUTH_MESSAGES = [
  'security token included in the request is invalid',
  'signature we calculated does not match',
  'not authorized to perform',
  "don't have access to the model",
  'access denied',
];

/**
 * Bedrock's errors are `{"message": "..."}` (the exception's name travels in a header). 403s for
 * bad or unauthorised credentials become authentication errors, so auto-ban disables the channel;
 * a throttle stays a plain 429.
 */
export function bedrockError(status: number, bodyText: string): ProviderError {
  const json = parseErrorJson(bodyText) as { message?: unknown; Message?: unknown } | undefined;
  const message = typeof json?.message === 'string' ? json.message : typeof json?.Message === 'string' ? json.Message : undefined;
  if (message === undefined) return normaliseUpstreamError(status, bodyText);
  const lower = message.toLowerCase();
  if ((status === 403 || status === 401) && AUTH_MESSAGES.some((phrase) => lower.includes(phrase)))
    return providerError(message, 'authentication_error', 'invalid_credentials');
  return providerError(message, status === 429 ? 'rate_limit_error' : 'upstream_error', `bedrock_${status}`);
}
