// Tencent Hunyuan through TencentCloud API 3.0 (README.md "Tencent Hunyuan"): `POST /` with
// X-TC-Action ChatCompletions, every call's TC3-HMAC-SHA256 signature recomputed from the SecretKey
// of a SecretId the mock knows, and refused, as Tencent does (status 200, `Response.Error`), when
// it does not match or its timestamp is more than five minutes off. Answers and stream events are
// Hunyuan's.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { chunkText, promptTokensOf, usageOf } from '../server.mjs';

/** The SecretIds the mock knows, SecretId -> SecretKey (a Tencent channel key is `<AppId>|<SecretId>|<SecretKey>`). Process-wide: a test may add its own. */
export const tencentSecrets = new Map([['mock-secret-id', 'mock-secret-key']]);
/** How far X-TC-Timestamp may be from the mock's clock, as Tencent allows. */
export const TENCENT_CLOCK_SKEW_S = 300;

const AUTHORIZATION = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;
const NOTE = '以上内容为AI生成，不代表开发者立场，请勿删除或修改本标记';

let sequence = 0;
const requestId = () => `00000000-0000-4000-a000-${String(++sequence).padStart(12, '0')}`;
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key, text) => createHmac('sha256', key).update(text, 'utf8').digest();

const refuse = (send, code, message) => send.json(200, JSON.stringify({ Response: { Error: { Code: code, Message: message }, RequestId: requestId() } }));

/**
 * The error Tencent would answer for this call's signature, or null when it is valid. The body's
 * hash is of the JSON as the route received it, re-serialised (route modules see the parsed body):
 * a signer must send compact JSON, as JSON.stringify writes it.
 */
function signatureFailure(req, path, query, body, now) {
  const match = AUTHORIZATION.exec(req.headers.authorization ?? '');
  if (!match) return ['AuthFailure.InvalidAuthorization', 'Authorization header is invalid or missing.'];
  const [, secretId, date, service, signedHeaders, signature] = match;
  const timestamp = Number(req.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp)) return ['MissingParameter', 'The request is missing a required parameter `X-TC-Timestamp`.'];
  if (Math.abs(now - timestamp) > TENCENT_CLOCK_SKEW_S) {
    return ['AuthFailure.SignatureExpire', 'Signature expired. Timestamp and server time cannot differ by more than five minutes.'];
  }
  const names = signedHeaders.split(';');
  if (!names.includes('content-type') || !names.includes('host'))
    return ['AuthFailure.InvalidAuthorization', 'SignedHeaders must include content-type and host.'];
  const secretKey = tencentSecrets.get(secretId);
  if (secretKey === undefined) return ['AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your SecretId is correct.'];
  const mismatch = ['AuthFailure.SignatureFailure', 'The provided credentials could not be validated. Please check your signature is correct.'];
  if (date !== new Date(timestamp * 1000).toISOString().slice(0, 10) || service !== 'hunyuan') return mismatch;
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(req.headers[name] ?? '')
          .trim()
          .toLowerCase()}\n`,
    )
    .join('');
  const canonicalRequest = [req.method, path, query.toString(), canonicalHeaders, signedHeaders, sha256(JSON.stringify(body))].join('\n');
  const stringToSign = ['TC3-HMAC-SHA256', String(timestamp), `${date}/${service}/tc3_request`, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(`TC3${secretKey}`, date), service), 'tc3_request');
  const expected = hmac(key, stringToSign);
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : mismatch;
}

function chat(req, body, options, send) {
  const messages = Array.isArray(body.Messages) ? body.Messages : [];
  const turns = messages[0]?.Role === 'system' ? messages.slice(1) : messages;
  const alternating =
    turns.length % 2 === 1 &&
    turns.every((message, index) => message?.Role === (index % 2 === 0 ? 'user' : 'assistant') && typeof message.Content === 'string');
  if (typeof body.Model !== 'string' || !alternating) {
    return refuse(
      send,
      'InvalidParameter',
      'Model is required; Messages: an optional system message first, then user and assistant alternating, ending with user.',
    );
  }
  if (body.Temperature !== undefined && !(body.Temperature >= 0 && body.Temperature <= 2))
    return refuse(send, 'InvalidParameterValue', 'Temperature must be in [0, 2].');
  if (body.TopP !== undefined && !(body.TopP >= 0 && body.TopP <= 1)) return refuse(send, 'InvalidParameterValue', 'TopP must be in [0, 1].');
  const usage = usageOf(promptTokensOf(messages.reduce((sum, message) => sum + String(message?.Content ?? '').length, 0)), options);
  const contents = options.echoHeaders ? [JSON.stringify(req.headers)] : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const id = requestId();
  const created = Math.floor(Date.now() / 1000);
  const usageBody = (completion) =>
    options.nousage ? {} : { Usage: { PromptTokens: usage.prompt, CompletionTokens: completion, TotalTokens: usage.prompt + completion } };
  if (body.Stream !== true) {
    const choice = { Index: 0, Message: { Role: 'assistant', Content: contents.join('') }, FinishReason: 'stop' };
    return send.json(
      200,
      JSON.stringify({ Response: { RequestId: id, Note: NOTE, Choices: [choice], Created: created, Id: id, ...usageBody(usage.completion) } }),
    );
  }
  // Each event carries the usage so far; the last (FinishReason "stop") the whole answer's.
  let streamed = 0;
  const event = (content, finish, completion) =>
    `data: ${JSON.stringify({ Note: NOTE, Choices: [{ Delta: { Role: 'assistant', Content: content }, FinishReason: finish }], Created: created, Id: id, ...usageBody(completion) })}\n\n`;
  send.stream(
    {
      head: '',
      chunk: (text) => event(text, '', (streamed = Math.min(usage.completion, streamed + options.words))),
      tail: event('', 'stop', usage.completion),
      badLine: 'data: {"Choices": broken\n\n',
    },
    contents,
  );
}

export const tencentRoutes = {
  flavor: 'tencent',

  match(method, path) {
    return method === 'POST' && path === '/' ? 'tencent.action' : undefined;
  },

  /** TencentCloud's error body, its code from the status. */
  errorBody: (status, message) =>
    JSON.stringify({
      Response: {
        Error: {
          Code:
            status === 401 ? 'AuthFailure.SignatureFailure' : status === 429 ? 'RequestLimitExceeded' : status >= 500 ? 'InternalError' : 'InvalidParameter',
          Message: message,
        },
        RequestId: requestId(),
      },
    }),

  respond(req, res, { path, body, query, options, send }) {
    const refused = signatureFailure(req, path, query, body, Math.floor(Date.now() / 1000));
    if (refused) return refuse(send, ...refused);
    if (req.headers['x-tc-action'] !== 'ChatCompletions')
      return refuse(send, 'InvalidAction', `The action \`${req.headers['x-tc-action']}\` is not supported.`);
    if (req.headers['x-tc-version'] !== '2023-09-01') return refuse(send, 'InvalidParameterValue', 'X-TC-Version must be 2023-09-01.');
    return chat(req, body, options, send);
  },
};
