// Baidu's wenxinworkshop v1 API (README.md "Baidu ERNIE v1"): the OAuth token endpoint, which
// checks the application's key pair and issues access tokens that expire, and the chat and
// embeddings endpoints, which refuse a call without a valid token, as Baidu does: with status 200
// and `{error_code, error_msg}`. Tokens live per mock instance.
import { chunkText, promptTokensOf, usageOf } from '../server.mjs';

/** The applications the mock knows, API Key -> Secret Key (a Baidu channel key is `<API Key>|<Secret Key>`). Process-wide: a test may add its own. */
export const baiduApps = new Map([['mock-baidu-api-key', 'mock-baidu-secret-key']]);
/** What the token endpoint answers as `expires_in` (Baidu's tokens last 30 days). */
export const BAIDU_TOKEN_LIFETIME_S = 2_592_000;

const BASE = '/rpc/2.0/ai_custom/v1/wenxinworkshop/';
const PATH = /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/(chat|embeddings)\/[^/]+$/;

let sequence = 0;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const apiError = (send, code, message) => send.json(200, JSON.stringify({ error_code: code, error_msg: message }));

/** The tokens this mock issued: token -> expiry (epoch ms). */
const tokensOf = (state) => (state.baiduTokens ??= new Map());

function token(query, state, send) {
  if (query.get('grant_type') !== 'client_credentials') {
    return send.json(400, JSON.stringify({ error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported' }));
  }
  const secret = baiduApps.get(query.get('client_id') ?? '');
  if (secret === undefined) return send.json(401, JSON.stringify({ error: 'invalid_client', error_description: 'unknown client id' }));
  if (query.get('client_secret') !== secret)
    return send.json(401, JSON.stringify({ error: 'invalid_client', error_description: 'Client authentication failed' }));
  const issued = ++sequence;
  const accessToken = `24.${issued.toString(16).padStart(32, '0')}.${BAIDU_TOKEN_LIFETIME_S}.${nowSeconds() + BAIDU_TOKEN_LIFETIME_S}.${issued}-mock`;
  tokensOf(state).set(accessToken, Date.now() + BAIDU_TOKEN_LIFETIME_S * 1000);
  send.json(
    200,
    JSON.stringify({
      refresh_token: `25.${issued}`,
      expires_in: BAIDU_TOKEN_LIFETIME_S,
      session_key: `mock-session-${issued}`,
      access_token: accessToken,
      scope: 'public brain_all_scope wenxinworkshop_mgr',
      session_secret: `mock-secret-${issued}`,
    }),
  );
}

/** Baidu's refusal of a call without a valid access token (100 missing, 110 unknown, 111 expired), or null. */
function tokenRefusal(query, state) {
  const accessToken = query.get('access_token');
  if (!accessToken) return [100, 'Invalid parameter'];
  const expiresAt = tokensOf(state).get(accessToken);
  if (expiresAt === undefined) return [110, 'Access token invalid or no longer valid'];
  if (expiresAt <= Date.now()) return [111, 'Access token expired'];
  return null;
}

function usageBody(prompt, completion) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function chat(req, body, options, send) {
  const messages = body.messages;
  const alternating =
    Array.isArray(messages) &&
    messages.length % 2 === 1 &&
    messages.every((message, index) => message?.role === (index % 2 === 0 ? 'user' : 'assistant') && typeof message.content === 'string');
  if (!alternating) return apiError(send, 336006, 'the length of messages must be an odd number, alternating user and assistant');
  if (body.temperature !== undefined && !(body.temperature > 0 && body.temperature <= 1)) return apiError(send, 336003, 'the range of temperature is (0, 1.0]');
  const chars = messages.reduce((sum, message) => sum + message.content.length, 0) + (typeof body.system === 'string' ? body.system.length : 0);
  const usage = usageOf(promptTokensOf(chars), options);
  const contents = options.echoHeaders ? [JSON.stringify(req.headers)] : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const id = `as-mock${++sequence}`;
  const created = nowSeconds();
  const common = { id, object: 'chat.completion', created };
  if (body.stream !== true) {
    const answer = { ...common, result: contents.join(''), is_truncated: false, need_clear_history: false, finish_reason: 'normal' };
    return send.json(200, JSON.stringify(options.nousage ? answer : { ...answer, usage: usageBody(usage.prompt, usage.completion) }));
  }
  let sentence = 0;
  const event = (id, fields) => `data: ${JSON.stringify({ ...common, sentence_id: id, ...fields })}\n\n`;
  const sofar = (completion) => (options.nousage ? {} : { usage: usageBody(usage.prompt, completion) });
  send.stream(
    {
      head: '',
      chunk: (text) => event(sentence++, { is_end: false, is_truncated: false, result: text, need_clear_history: false, ...sofar(0) }),
      tail: event(contents.length, {
        is_end: true,
        is_truncated: false,
        result: '',
        need_clear_history: false,
        finish_reason: 'normal',
        ...sofar(usage.completion),
      }),
      badLine: 'data: {"id": broken\n\n',
    },
    contents,
  );
}

function embeddings(body, options, send) {
  const input = body.input;
  if (!Array.isArray(input) || input.length === 0 || input.length > 16 || input.some((text) => typeof text !== 'string' || text === '')) {
    return apiError(send, 336003, 'input must be a list of 1 to 16 non-empty texts');
  }
  const data = input.map((_, index) => ({
    object: 'embedding',
    embedding: Array.from({ length: options.dims }, (__, d) => (((index + 1) * (d + 3)) % 17) / 17),
    index,
  }));
  const prompt = usageOf(promptTokensOf(input.reduce((sum, text) => sum + text.length, 0)), options).prompt;
  const answer = { id: `as-mock${++sequence}`, object: 'embedding_list', created: nowSeconds(), data };
  send.json(200, JSON.stringify(options.nousage ? answer : { ...answer, usage: { prompt_tokens: prompt, total_tokens: prompt } }));
}

export const baiduRoutes = {
  flavor: 'baidu',

  match(method, path) {
    if (path === '/oauth/2.0/token' && (method === 'POST' || method === 'GET')) return 'baidu.token';
    if (method === 'POST' && PATH.test(path)) return path.startsWith(`${BASE}chat/`) ? 'baidu.chat' : 'baidu.embeddings';
    return undefined;
  },

  /** Baidu's API error body, its code from the status (401: the token, 429: the QPS limit). */
  errorBody: (status, message) =>
    JSON.stringify({ error_code: status === 401 ? 110 : status === 429 ? 18 : status >= 500 ? 336000 : 336003, error_msg: message }),

  respond(req, res, { kind, body, options, query, send, state }) {
    if (kind === 'baidu.token') return token(query, state, send);
    const refused = tokenRefusal(query, state);
    if (refused) return apiError(send, ...refused);
    if (kind === 'baidu.chat') return chat(req, body, options, send);
    return embeddings(body, options, send);
  },
};
