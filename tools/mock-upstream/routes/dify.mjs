// Dify's chat-messages API (README.md "Dify"), answered as a chatflow (advanced-chat) app would:
// blocking `{answer, metadata: {usage}}`, or the SSE events `data: {"event": ...}` with a ping,
// the workflow and node events around the `message` events, and `message_end` with the usage.
// Errors are Dify's `{code, message, status}`. The key (the app's) is checked by the server, as Bearer.
import { chunkText, promptTokensOf, usageOf } from '../server.mjs';

let sequence = 0;
const uuid = () => `00000000-0000-4000-b000-${String(++sequence).padStart(12, '0')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

const codes = { 400: 'invalid_param', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 429: 'too_many_requests' };

/** Dify's usage, prices beside the token counts (the mock's prices are nonsense but well-formed). */
function usageBody(prompt, completion) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, total_price: '0', currency: 'USD', latency: 0.1 };
}

function invalid(send, message) {
  send.json(400, JSON.stringify({ code: 'invalid_param', message, status: 400 }));
}

function chat(req, body, options, send) {
  if (typeof body.query !== 'string' || body.query === '') return invalid(send, 'query is required');
  if (body.response_mode !== 'blocking' && body.response_mode !== 'streaming') return invalid(send, 'response_mode must be blocking or streaming');
  if (typeof body.user !== 'string' || body.user === '') return invalid(send, 'user is required');
  if (body.inputs !== undefined && (typeof body.inputs !== 'object' || body.inputs === null || Array.isArray(body.inputs)))
    return invalid(send, 'inputs must be an object');
  // The mock keeps no conversations: any id is one it does not know.
  if (body.conversation_id) return send.json(404, JSON.stringify({ code: 'not_found', message: 'Conversation Not Exists.', status: 404 }));

  const usage = usageOf(promptTokensOf(body.query.length), options);
  const contents = options.echoHeaders ? [JSON.stringify(req.headers)] : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const ids = { task_id: uuid(), message_id: uuid(), conversation_id: uuid() };
  const metadata = { ...(options.nousage ? {} : { usage: usageBody(usage.prompt, usage.completion) }), retriever_resources: [] };
  if (body.response_mode === 'blocking') {
    return send.json(
      200,
      JSON.stringify({ event: 'message', ...ids, id: ids.message_id, mode: 'advanced-chat', answer: contents.join(''), metadata, created_at: nowSeconds() }),
    );
  }

  const event = (fields) => `data: ${JSON.stringify({ ...fields, ...ids, created_at: nowSeconds() })}\n\n`;
  const node = { id: uuid(), node_id: '1700000000001', node_type: 'llm', title: 'LLM', index: 2 };
  const run = { id: uuid(), workflow_id: uuid() };
  const head = 'event: ping\n\n' + event({ event: 'workflow_started', data: { ...run, sequence_number: 1 } }) + event({ event: 'node_started', data: node });
  const chunk = (text) => event({ event: 'message', id: ids.message_id, answer: text });
  if (options.incomplete) {
    // The app's model fails after the first chunk: Dify reports it as an `error` event, which ends the stream.
    const error = event({ event: 'error', status: 400, code: 'completion_request_error', message: 'mock upstream: the model failed mid-answer' });
    return send.stream({ head, chunk, tail: error, badLine: 'data: {"event": "message", this is not json\n\n' }, contents.slice(0, 1));
  }
  const tail =
    event({ event: 'node_finished', data: { ...node, status: 'succeeded', outputs: { text: contents.join('') } } }) +
    event({ event: 'workflow_finished', data: { ...run, status: 'succeeded', outputs: { answer: contents.join('') }, error: null } }) +
    event({ event: 'message_end', id: ids.message_id, metadata });
  send.stream({ head, chunk, tail, badLine: 'data: {"event": "message", this is not json\n\n' }, contents);
}

export const difyRoutes = {
  flavor: 'dify',

  match(method, path) {
    return method === 'POST' && path === '/v1/chat-messages' ? 'dify.chat' : undefined;
  },

  /** Dify's error body: `{code, message, status}` (`unauthorized` for a bad app key). */
  errorBody: (status, message) => JSON.stringify({ code: codes[status] ?? (status >= 500 ? 'internal_server_error' : 'bad_request'), message, status }),

  respond(req, res, { body, options, send }) {
    chat(req, body, options, send);
  },
};
