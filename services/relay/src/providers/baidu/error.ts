import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError, UpstreamAnswerError, errorTypeOfStatus } from '../shared/upstream-error.js';

/** Baidu's API error (in a 200 answer as often as not): `{error_code, error_msg}`. */
export const baiduErrorSchema = z.object({ error_code: z.union([z.number(), z.string()]), error_msg: z.string().nullish() });
/** Baidu's OAuth error (the token endpoint): `{error, error_description}`. */
const oauthErrorSchema = z.object({ error: z.string(), error_description: z.string().nullish() });

interface Meaning {
  type: string;
  status: number;
}

const server: Meaning = { type: 'server_error', status: 502 };
const rateLimit: Meaning = { type: 'rate_limit_error', status: 429 };

/**
 * Baidu's error codes (the wenxinworkshop error-code table): 100, 110, 111 the access token
 * (missing, invalid, expired), 13 and 14 the key pair; 6 no permission; 3 an unknown API; 4, 17,
 * 18, 336501, 336502 rate and daily limits, 19 the total quota spent; 1, 2, 336000, 336100
 * Baidu's own trouble; every other 336xxx a request Baidu would not take.
 */
function meaningOf(code: number): Meaning {
  switch (code) {
    case 13:
    case 14:
    case 100:
    case 110:
    case 111:
      return { type: 'authentication_error', status: 401 };
    case 6:
      return { type: 'permission_error', status: 403 };
    case 3:
      return { type: 'not_found_error', status: 404 };
    case 4:
    case 17:
    case 18:
    case 336501:
    case 336502:
      return rateLimit;
    case 19:
      return { type: 'insufficient_quota', status: 429 };
    case 1:
    case 2:
    case 336000:
    case 336100:
      return server;
    default:
      return code >= 336000 && code < 337000 ? { type: 'invalid_request_error', status: 400 } : server;
  }
}

/** Maps a Baidu error answer (any status) to our error: its kind from Baidu's code, else from the status. */
export function baiduError(status: number, bodyText: string): ProviderError {
  const json = parseErrorJson(bodyText);
  const api = baiduErrorSchema.safeParse(json);
  if (api.success) {
    const { error_code: code, error_msg: message } = api.data;
    return providerError(message || `Baidu error ${code}`, meaningOf(Number(code)).type, code);
  }
  const oauth = oauthErrorSchema.safeParse(json);
  if (oauth.success) {
    const { error, error_description: description } = oauth.data;
    return providerError(description || error, error === 'invalid_client' ? 'authentication_error' : (errorTypeOfStatus(status) ?? 'upstream_error'), error);
  }
  return normaliseUpstreamError(status, bodyText);
}

/**
 * Baidu answered HTTP 200 with `{error_code, error_msg}` (its way for every API error). Thrown by
 * the answer converters, in the platform's taxonomy: `statusCode` is the HTTP status the error
 * stands for, which the client is answered with (a 5xx without the upstream's words); the relay
 * takes it as the channel's failure (UpstreamAnswerError).
 */
export class BaiduAnswerError extends UpstreamAnswerError {
  constructor(code: number | string, message: string | null | undefined) {
    const meaning = meaningOf(Number(code));
    const error = providerError(message || `Baidu error ${code}`, meaning.type, code);
    // 110 and 111: the access token is invalid or expired; the relay drops its cached one.
    super(error, meaning.status, Number(code) === 110 || Number(code) === 111);
  }
}
