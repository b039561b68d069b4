import { createHash, createHmac } from 'node:crypto';
import type { UpstreamRequest } from '../types.js';

const ALGORITHM = 'TC3-HMAC-SHA256';

export interface Tc3Signing {
  /** The service in the credential scope (`hunyuan`, `cvm`...). */
  service: string;
  secretId: string;
  secretKey: string;
  /** Unix seconds: the X-TC-Timestamp sent, and the UTC date of the scope. */
  timestamp: number;
  /** The headers signed, lower-case, besides `content-type` and `host` (which always are). */
  signedHeaders?: readonly string[];
}

/**
 * TencentCloud API 3.0's TC3-HMAC-SHA256 signature of a built call: the canonical request
 * (method, path, query, the signed headers lower-cased and trimmed `name:value` in ASCII order,
 * their names, the body's SHA-256), the string to sign (algorithm, timestamp, `date/service/
 * tc3_request`, the canonical request's SHA-256), the key derived from the secret through the
 * date, the service and `tc3_request`. Returns the call with `Host` (what is signed is what is
 * sent), `X-TC-Timestamp` and `Authorization`.
 */
export function signTc3(request: UpstreamRequest, signing: Tc3Signing): UpstreamRequest {
  const url = new URL(request.url);
  const headers: Record<string, string> = { ...request.headers, Host: url.host, 'X-TC-Timestamp': String(signing.timestamp) };
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim().toLowerCase()]));
  const names = [...new Set(['content-type', 'host', ...(signing.signedHeaders ?? [])])].sort();
  const signedHeaders = names.join(';');
  const canonicalHeaders = names.map((name) => `${name}:${byName.get(name) ?? ''}\n`).join('');
  const canonicalRequest = [request.method, url.pathname, url.search.slice(1), canonicalHeaders, signedHeaders, sha256(request.body ?? '')].join('\n');
  const date = new Date(signing.timestamp * 1000).toISOString().slice(0, 10);
  const scope = `${date}/${signing.service}/tc3_request`;
  const stringToSign = [ALGORITHM, String(signing.timestamp), scope, sha256(canonicalRequest)].join('\n');
  const dateKey = hmac(`TC3${signing.secretKey}`, date);
  const signingKey = hmac(hmac(dateKey, signing.service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return {
    ...request,
    headers: { ...headers, Authorization: `${ALGORITHM} Credential=${signing.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}` },
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key: string | Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}
