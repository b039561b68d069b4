// AWS's wire rules, shared by the Bedrock route and the provider's tests (no import of the server,
// so a test can load it alone): Signature Version 4 checked as AWS checks it, from the secret key,
// and the binary event stream (prelude, string headers, payload, two CRC32s) encoded by hand,
// independent of the codec the relay decodes it with.
import crypto from 'node:crypto';
import zlib from 'node:zlib';

/** The credentials the mock knows (AWS's documentation example keys): access key id -> secret. */
export const BEDROCK_CREDENTIALS = {
  AKIAIOSFODNN7EXAMPLE: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  ASIAMOCKTEMPORARY001: 'temporary/secret/for/session/tokens',
};
/** The session token the temporary access key needs (x-amz-security-token). */
export const BEDROCK_SESSION_TOKEN = 'FwoGZXIvYXdzEMock//session//token';

/** How far a request's date may be from now, as AWS allows. */
const CLOCK_SKEW_MS = 5 * 60_000;

const sha256 = (data) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 wants it. */
const uriEscape = (value) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Why AWS would refuse the request's signature (`[exception, message]`), or null when it is right.
 * `req` needs `method` and lower-case `headers`; exported for the provider's fixture tests.
 */
export function signatureProblem(req, path, query, raw, now = Date.now()) {
  const header = req.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
    header,
  );
  if (!match) return ['IncompleteSignatureException', 'Authorization header requires Credential, SignedHeaders and Signature.'];
  const [, accessKey, date, region, service, signedHeaders, signature] = match;
  const secret = BEDROCK_CREDENTIALS[accessKey];
  if (!secret) return ['UnrecognizedClientException', 'The security token included in the request is invalid.'];
  if (accessKey.startsWith('ASIA') && req.headers['x-amz-security-token'] !== BEDROCK_SESSION_TOKEN)
    return ['UnrecognizedClientException', 'The security token included in the request is invalid.'];
  if (service !== 'bedrock') return ['InvalidSignatureException', `Credential should be scoped to correct service: 'bedrock'.`];
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!when || amzDate.slice(0, 8) !== date)
    return ['InvalidSignatureException', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.'];
  const at = Date.UTC(+when[1], +when[2] - 1, +when[3], +when[4], +when[5], +when[6]);
  if (Math.abs(now - at) > CLOCK_SKEW_MS) return ['InvalidSignatureException', 'Signature expired: the request date is too far from the server time.'];
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return ['InvalidSignatureException', 'host and x-amz-date must be signed.'];
  // The canonical request, as AWS computes it: the path encoded again (non-S3 services), the query sorted.
  const canonicalUri = path
    .split('/')
    .map((segment) => uriEscape(segment))
    .join('/');
  const canonicalQuery = [...query.entries()]
    .map(([name, value]) => [uriEscape(name), uriEscape(value)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(req.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const payloadHash = sha256(raw ?? '');
  const claimedHash = req.headers['x-amz-content-sha256'];
  if (claimedHash && claimedHash !== payloadHash)
    return ['InvalidSignatureException', 'The provided x-amz-content-sha256 header does not match what was computed.'];
  const canonical = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const expected = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  if (!crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return ['InvalidSignatureException', 'The request signature we calculated does not match the signature you provided.'];
  return null;
}

/** One event-stream message: string headers, a payload, both CRCs. */
export function eventStreamMessage(headers, payload) {
  const encoded = Object.entries(headers).map(([name, value]) => {
    const key = Buffer.from(name);
    const text = Buffer.from(value);
    const out = Buffer.alloc(1 + key.length + 1 + 2 + text.length);
    out.writeUInt8(key.length, 0);
    key.copy(out, 1);
    out.writeUInt8(7, 1 + key.length); // string
    out.writeUInt16BE(text.length, 2 + key.length);
    text.copy(out, 4 + key.length);
    return out;
  });
  const headerBytes = Buffer.concat(encoded);
  const body = Buffer.from(payload);
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(12 + headerBytes.length + body.length + 4, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(zlib.crc32(prelude), 0);
  const message = Buffer.concat([prelude, preludeCrc, headerBytes, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(message), 0);
  return Buffer.concat([message, crc]);
}
