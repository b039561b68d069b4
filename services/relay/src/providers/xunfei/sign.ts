import { createHmac } from 'node:crypto';
import type { SparkCredentials } from './api.js';

/**
 * iFlytek's URL signature ("通用URL鉴权"): HMAC-SHA256, with the APISecret, of the handshake's
 * `host`, `date` and request line (`host: {host}\ndate: {RFC1123 date}\nGET {path} HTTP/1.1`),
 * base64; the `authorization` parameter is the base64 of `api_key="{APIKey}",
 * algorithm="hmac-sha256", headers="host date request-line", signature="{signature}"`, sent with
 * the same `date` and `host` in the query. The host is the URL's (with its port when it has one),
 * as the upgrade's Host header carries it. iFlytek refuses a date more than five minutes off its
 * clock, so a URL is signed when the call is sent. The URL carries the APIKey and the signature;
 * the APISecret never leaves this function.
 */
export function signSparkUrl(url: string, credentials: Pick<SparkCredentials, 'apiKey' | 'apiSecret'>, now: Date): string {
  const target = new URL(url);
  const date = now.toUTCString();
  const signature = createHmac('sha256', credentials.apiSecret).update(`host: ${target.host}\ndate: ${date}\nGET ${target.pathname} HTTP/1.1`).digest('base64');
  const origin = `api_key="${credentials.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`;
  const query = new URLSearchParams({ authorization: Buffer.from(origin, 'utf8').toString('base64'), date, host: target.host });
  return `${target.origin}${target.pathname}?${query.toString()}`;
}
