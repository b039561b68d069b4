// Coze's v3 chat API (README.md "Coze"): POST /v3/chat, the access token as Bearer, answered as a
// published bot would: a stream of `event:`-named events (the chat created and in progress, one
// `conversation.message.delta` per chunk, the whole answer's `conversation.message.completed`, a
// verbose `generate_answer_finish`, `conversation.chat.completed` with the usage, `done`), or, not
// streamed, the chat to poll. Refusals are Coze's `{code, msg}`, answered with status 200 as Coze
// answers them (a bad token: 401). The bot id takes `@options`: Coze's body names no model.
import { chunkText, parseMockOptions, promptTokensOf, splitModel, usageOf } from '../server.mjs';

let sequence = 0;
const nextId = () => String(7_400_000_000_000_000_000n + BigInt(++sequence));
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Coze's codes for the server's errors (a bad key, `status=N`). */
const codes = { 400: 4000, 401: 4100, 403: 4101, 404: 4200, 429: 4009 };
const refusal = (code, msg) => JSON.stringify({ code, msg, detail: { logid: `mock${sequence}` } });

/**
 * The options a bot id may carry after `@`: Coze's own (`refuse=N`, `errorevent=N`) and the
 * generic ones that shape the answer. How it is sent (delay, cut, badsse...) comes from the
 * request's options like every route's (the defaults, the key, `x-mock`, the body's `mock`).
 */
const cozeOptions = new Set(['refuse', 'errorevent']);
const contentOptions = new Set(['chunks', 'words', 'nousage', 'negusage', 'incomplete', 'echo-headers', 'echoheaders', 'status', 'fail']);

/** The bot id's options over the request's, or an error message naming the one that cannot go there. */
function botOptions(botId, options) {
  const [bot, spec] = splitModel(botId);
  const coze = {};
  const generic = [];
  for (const part of (spec ?? '').split(/[,;]/).filter(Boolean)) {
    const [name, value = ''] = part.split('=');
    const key = name.trim().toLowerCase();
    if (cozeOptions.has(key)) {
      const code = Number(value);
      if (!Number.isInteger(code) || code <= 0) return { problem: `mock option ${key} must be a Coze error code` };
      coze[key] = code;
    } else if (contentOptions.has(key)) generic.push(part);
    else return { problem: `mock option ${key} cannot go in a Coze bot id: give it through the body's mock field, the key or x-mock` };
  }
  try {
    return { bot, coze, options: generic.length > 0 ? parseMockOptions(generic.join(','), { ...options }) : options };
  } catch (error) {
    return { problem: error.message };
  }
}

/** Why Coze would refuse the body (code 4000), or null. */
function bodyProblem(body) {
  if (typeof body.bot_id !== 'string' || body.bot_id === '') return 'bot_id is required';
  if (typeof body.user_id !== 'string' || body.user_id === '') return 'user_id is required';
  const messages = body.additional_messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'additional_messages is required';
  const valid = (message) =>
    (message?.role === 'user' || message?.role === 'assistant') && typeof message.content === 'string' && message.content_type === 'text';
  if (!messages.every(valid)) return 'invalid message: each needs role user or assistant, text content and content_type text';
  if (messages.at(-1).role !== 'user') return 'invalid message: the last message must be the user question';
  return null;
}

function chat(req, body, requestOptions, send) {
  const problem = bodyProblem(body);
  if (problem) return send.json(200, refusal(4000, problem));
  const parsed = botOptions(body.bot_id, requestOptions);
  if (parsed.problem) return send.json(200, refusal(4000, parsed.problem));
  const { bot, coze, options } = parsed;
  if (options.status) return send.error(options.status, `mock upstream: status ${options.status} as asked`);
  if (coze.refuse) return send.json(200, refusal(coze.refuse, `mock upstream: refused with ${coze.refuse} as asked`));

  const ids = { id: nextId(), conversation_id: nextId(), bot_id: bot };
  const chatObject = (status, extra = {}) => ({ ...ids, created_at: nowSeconds(), last_error: { code: 0, msg: '' }, status, ...extra });
  if (body.stream !== true) return send.json(200, JSON.stringify({ code: 0, msg: '', data: chatObject('in_progress') }));

  const chars = body.additional_messages.reduce((sum, message) => sum + message.content.length, 0);
  const usage = usageOf(promptTokensOf(chars), options);
  const contents = options.echoHeaders ? [JSON.stringify(req.headers)] : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const messageId = nextId();
  const message = (content, extra = {}) => ({
    id: messageId,
    conversation_id: ids.conversation_id,
    bot_id: bot,
    chat_id: ids.id,
    role: 'assistant',
    type: 'answer',
    content,
    content_type: 'text',
    ...extra,
  });
  const event = (name, data) => `event:${name}\ndata:${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  const head = event('conversation.chat.created', chatObject('created')) + event('conversation.chat.in_progress', chatObject('in_progress'));
  const chunk = (text) => event('conversation.message.delta', message(text));
  const badLine = 'event:conversation.message.delta\ndata:{"id": broken\n\n';
  const done = event('done', '"[DONE]"');
  if (options.incomplete) {
    // The bot's model fails after the first chunk: Coze reports the chat failed.
    const failed = chatObject('failed', { failed_at: nowSeconds(), last_error: { code: 5000, msg: 'mock upstream: the bot failed mid-answer' } });
    return send.stream({ head, chunk, tail: event('conversation.chat.failed', failed) + done, badLine }, contents.slice(0, 1));
  }
  if (coze.errorevent) {
    const error = event('error', { code: coze.errorevent, msg: `mock upstream: error ${coze.errorevent} as asked` });
    return send.stream({ head, chunk, tail: error, badLine }, contents.slice(0, 1));
  }
  const answer = contents.join('');
  const verbose = JSON.stringify({ msg_type: 'generate_answer_finish', data: '', from_module: null, from_unit: null });
  const completed = chatObject('completed', {
    completed_at: nowSeconds(),
    ...(options.nousage ? {} : { usage: { token_count: usage.prompt + usage.completion, output_count: usage.completion, input_count: usage.prompt } }),
  });
  const tail =
    event('conversation.message.completed', message(answer)) +
    event('conversation.message.completed', message(verbose, { type: 'verbose' })) +
    event('conversation.chat.completed', completed) +
    done;
  send.stream({ head, chunk, tail, badLine }, contents);
}

export const cozeRoutes = {
  flavor: 'coze',

  match(method, path) {
    return method === 'POST' && path === '/v3/chat' ? 'coze.chat' : undefined;
  },

  /** Coze's error body, `{code, msg, detail: {logid}}`: 4100 for a bad token, 4009 for a limit, 5000 for its own trouble. */
  errorBody: (status, message) => refusal(codes[status] ?? (status >= 500 ? 5000 : 4000), message),

  respond(req, res, { body, options, send }) {
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) return send.json(401, refusal(4100, 'authentication is invalid'));
    chat(req, body, options, send);
  },
};
