import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** What an error means to the relay: its kind (auto-ban reads it) and the HTTP status it stands for. */
export interface SparkMeaning {
  type: string;
  status: number;
}

const invalid: SparkMeaning = { type: 'invalid_request_error', status: 400 };
const authentication: SparkMeaning = { type: 'authentication_error', status: 401 };
const permission: SparkMeaning = { type: 'permission_error', status: 403 };
const rateLimit: SparkMeaning = { type: 'rate_limit_error', status: 429 };
const busy: SparkMeaning = { type: 'server_error', status: 503 };
const server: SparkMeaning = { type: 'server_error', status: 502 };

/**
 * Spark's `header.code` (its error-code table): 10003-10005, 10163 and 11501 a message Spark
 * cannot read; 10907 a conversation longer than the version takes; 10013, 10014 and 10019 its
 * content moderation (the question, the answer, the conversation); 10006 and 10007 one user's
 * concurrency (a socket per uid, one question at a time); 11201-11203 the app's daily, per-second
 * and concurrent limits; 11200 an app without the licence for the version (or the APPID of
 * another account), 11500 its authentication; 10015 and 10016 an app blacklisted or not granted
 * the service; 10008 and 10110 Spark short of capacity; the rest (10000-10002, 10009-10012,
 * 10222: the socket or the engine) Spark's own trouble.
 */
export function sparkCodeMeaning(code: number): SparkMeaning {
  if ([10003, 10004, 10005, 10163, 10907, 11501, 10013, 10014, 10019].includes(code)) return invalid;
  if ([10006, 10007, 11201, 11202, 11203].includes(code)) return rateLimit;
  if (code === 11200 || code === 11500) return authentication;
  if (code === 10015 || code === 10016) return permission;
  if (code === 10008 || code === 10110) return busy;
  return server;
}

/** A Spark answer message that carries an error: `header.code` not 0. */
const errorFrameSchema = z.object({ header: z.object({ code: z.coerce.number(), message: z.string().nullish(), sid: z.string().nullish() }) });

/** The error a Spark answer message reports (`header.code`), in our terms; its status is what the error stands for. */
export function sparkFrameError(code: number, message: string | null | undefined): ProviderError & { status: number } {
  const meaning = sparkCodeMeaning(code);
  return { ...providerError(message || `iFlytek Spark error ${code}`, meaning.type, code), status: meaning.status };
}

/**
 * Maps what Spark refused with to our error. Before the upgrade its gateway answers HTTP with
 * `{message}`: 401 a credential problem (no authorization, a signature it cannot parse or that
 * does not match), 403 a date more than five minutes off or a client IP not allowed. The date is
 * the relay's clock, not the channel's key, so that one is not an authentication failure (auto-ban
 * would disable every Spark channel at once). An error message in place of an answer (a folded
 * stream) is read by its code.
 */
export function sparkError(status: number, bodyText: string): ProviderError {
  const frame = errorFrameSchema.safeParse(parseErrorJson(bodyText));
  if (frame.success && frame.data.header.code !== 0) {
    const { status: _status, ...error } = sparkFrameError(frame.data.header.code, frame.data.header.message);
    return error;
  }
  const normalised = normaliseUpstreamError(status, bodyText);
  if (normalised.type !== 'upstream_error') return normalised;
  if (status === 401) return { ...normalised, type: 'authentication_error' };
  if (status === 403) return { ...normalised, type: /\bdate\b/i.test(normalised.message) ? 'upstream_error' : 'permission_error' };
  if (status === 429) return { ...normalised, type: 'rate_limit_error' };
  return normalised;
}
