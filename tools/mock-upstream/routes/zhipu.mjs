// Zhipu's v3 API (README.md "Zhipu v3"): `model-api/{model}/invoke` (chat, and the embedding model)
// and `sse-invoke` (its event stream, whose data is text and whose usage is in the `meta` field),
// every call authenticated as Zhipu does it: a JWT in `Authorization`, signed HS256 with the secret
// of a key the mock knows, and not expired. Errors are Zhipu's `{code, msg, success: false}`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { chunkText, promptTokensOf, usageOf } from '../server.mjs';

/** The keys the mock knows, id -> secret (a Zhipu key is `<id>.<secret>`). Process-wide: a test may add its own. */
export const zhipuKeys = new Map([['mock-zhipu-id', 'mock-zhipu-secret']]);

const PATH = /^\/api\/paas\/v3\/model-api\/([^/]+)\/(invoke|sse-invoke)$/;
const isEmbeddingModel = (model) => /embedding/i.test(model);

let sequence = 0;
const nextId = () => String(8_000_000_000_000_000_000n + BigInt(++sequence));

/** 401 and Zhipu's code when the token is not one Zhipu would take, else null. */
function authFailure(authorization, now) {
  if (!authorization) return { code: 1001, msg: 'Header中未收到Authorization参数，无法进行身份验证。' };
  const invalid = { code: 1002, msg: 'Authorization Token非法，请确认Authorization Token正确传递。' };
  const token = authorization.replace(/^Bearer /, '');
  const parts = token.split('.');
  if (parts.length !== 3) return invalid;
  let header;
  let payload;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return invalid;
  }
  if (header?.alg !== 'HS256' || typeof payload?.api_key !== 'string') return invalid;
  const secret = zhipuKeys.get(payload.api_key);
  if (secret === undefined) return invalid;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  if (typeof payload.exp !== 'number' || payload.exp <= now) return { code: 1003, msg: 'Authorization Token已过期，请重新生成/获取。' };
  return null;
}

const fail = (send, status, code, msg) => send.json(status, JSON.stringify({ code, msg, success: false }));

function usageBody(prompt, options) {
  if (options.nousage) return undefined;
  const usage = usageOf(prompt, options);
  return { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion };
}

function chat(req, stream, body, options, send) {
  const turns = body.prompt;
  if (!Array.isArray(turns) || turns.length === 0 || turns.some((turn) => !['user', 'assistant'].includes(turn?.role) || typeof turn.content !== 'string')) {
    return fail(send, 400, 1214, 'prompt参数非法：需为user与assistant交替的对话列表');
  }
  const prompt = promptTokensOf(turns.reduce((sum, turn) => sum + turn.content.length, 0));
  const contents = options.echoHeaders ? [JSON.stringify(req.headers)] : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const taskId = nextId();
  const requestId = nextId();
  const usage = usageBody(prompt, options);
  if (!stream) {
    // The default return_type, json_string: the content is a JSON string literal, quotes included.
    const content = body.return_type === 'text' ? contents.join('') : JSON.stringify(contents.join(''));
    const data = { request_id: requestId, task_id: taskId, task_status: 'SUCCESS', choices: [{ role: 'assistant', content }], ...(usage ? { usage } : {}) };
    return send.json(200, JSON.stringify({ code: 200, msg: '操作成功', data, success: true }));
  }
  const dataLines = (text) =>
    text
      .split('\n')
      .map((line) => `data: ${line}`)
      .join('\n');
  const meta = JSON.stringify({ task_status: 'SUCCESS', ...(usage ? { usage } : {}), task_id: taskId, request_id: requestId });
  send.stream(
    {
      head: '',
      chunk: (text) => `event: add\nid: ${taskId}\n${dataLines(text)}\n\n`,
      tail: `event: finish\nid: ${taskId}\ndata: \nmeta: ${meta}\n\n`,
      badLine: `event: add\nid: ${taskId}\ndata: \nmeta: {"task_status": broken\n\n`,
    },
    contents,
  );
}

function embed(body, options, send) {
  if (typeof body.prompt !== 'string' || body.prompt === '') return fail(send, 400, 1214, 'prompt参数非法：需为一段文本');
  const embedding = Array.from({ length: options.dims }, (_, d) => ((d + 3) % 17) / 17);
  const prompt = usageOf(promptTokensOf(body.prompt.length), options).prompt;
  const usage = options.nousage ? {} : { usage: { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt } };
  const data = { embedding, request_id: nextId(), task_id: nextId(), task_status: 'SUCCESS', ...usage };
  send.json(200, JSON.stringify({ code: 200, msg: '操作成功', data, success: true }));
}

export const zhipuRoutes = {
  flavor: 'zhipu',

  match(method, path) {
    return method === 'POST' && PATH.test(path) ? 'zhipu.invoke' : undefined;
  },

  /** Zhipu's error body, its code from the status (401: an invalid token, 429: the rate limit). */
  errorBody: (status, message) =>
    JSON.stringify({ code: status === 401 ? 1002 : status === 429 ? 1302 : status >= 500 ? 1234 : 1210, msg: message, success: false }),

  respond(req, res, { path, body, options, send }) {
    const refused = authFailure(req.headers.authorization, Date.now());
    if (refused) return fail(send, 401, refused.code, refused.msg);
    const [, rawModel, method] = PATH.exec(path);
    const model = decodeURIComponent(rawModel);
    const stream = method === 'sse-invoke';
    if (!isEmbeddingModel(model)) return chat(req, stream, body, options, send);
    if (stream) return fail(send, 400, 1212, '当前模型不支持SSE调用方式。');
    return embed(body, options, send);
  },
};
