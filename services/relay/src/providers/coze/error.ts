import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** Coze's error body, also the data of a stream's `error` event and a failed chat's `last_error`: `{"code": 4100, "msg": "..."}`. */
export const cozeErrorSchema = z.object({ code: z.union([z.number(), z.string()]), msg: z.string() });

/** What a Coze error code stands for: the error type (auto-ban reads it) and the HTTP status a folded answer fails with. */
export interface CozeMeaning {
  type: string;
  status: number;
}

const authentication: CozeMeaning = { type: 'authentication_error', status: 401 };
const rateLimit: CozeMeaning = { type: 'rate_limit_error', status: 429 };
const server: CozeMeaning = { type: 'server_error', status: 502 };

/**
 * Coze's error codes (its "错误码" table): 4100 the token is not valid, 4101 it may not use the bot,
 * 700012006 an OAuth access token that is not valid; 4008 the bot's daily limit, 4009 Coze's own
 * request limit, 4020 the purchased RPM; 4011, 4019 and 4022 the account's balance; 4013 the model
 * failed and 5000 Coze's trouble; every other 4xxx a request Coze would not take (4006 no such bot,
 * 4015 a bot not published as an API).
 */
export function cozeMeaning(code: number): CozeMeaning {
  switch (code) {
    case 4100:
    case 4101:
    case 700012006:
      return authentication;
    case 4008:
    case 4009:
    case 4020:
      return rateLimit;
    case 4011:
    case 4019:
    case 4022:
      return { type: 'insufficient_quota', status: 429 };
    case 4013:
    case 5000:
      return server;
    default:
      return code >= 5000 ? server : { type: 'invalid_request_error', status: 400 };
  }
}

/** A Coze error (`{code, msg}`) as ours, with the status it stands for. */
export function cozeFailure(code: number | string, message: string | null | undefined): ProviderError & { status: number } {
  const meaning = cozeMeaning(Number(code));
  return { ...providerError(message || `Coze error ${code}`, meaning.type, code), status: meaning.status };
}

/** Maps a Coze error answer (any status) to our error: its kind from Coze's code, else the shapes every upstream uses. */
export function cozeError(status: number, bodyText: string): ProviderError {
  const parsed = cozeErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { status: _status, ...error } = cozeFailure(parsed.data.code, parsed.data.msg);
  return error;
}
