import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError, errorTypeOfStatus } from '../shared/upstream-error.js';

/** Dify's error body, also the data of a stream's `error` event: `{"code": "invalid_param", "message": "...", "status": 400}`. */
const difyErrorSchema = z.object({ code: z.string().nullish(), message: z.string(), status: z.number().nullish() });

/** Dify's codes that say more than the status (all of these come with 400). */
const typesByCode: Record<string, string> = {
  unauthorized: 'authentication_error',
  provider_quota_exceeded: 'insufficient_quota',
  provider_not_initialize: 'invalid_request_error',
  app_unavailable: 'invalid_request_error',
};

/** The kind of a Dify failure, from its code, else its status. */
export function difyErrorType(status: number, code: string | null | undefined): string {
  return (code ? typesByCode[code] : undefined) ?? errorTypeOfStatus(status) ?? (status >= 500 ? 'server_error' : 'upstream_error');
}

export function difyError(status: number, bodyText: string): ProviderError {
  const parsed = difyErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { code, message } = parsed.data;
  return providerError(message, difyErrorType(status, code), code ?? status);
}
