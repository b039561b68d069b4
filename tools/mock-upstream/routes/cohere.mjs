// Cohere's API (README.md "Cohere"): v2 chat (whole, or its SSE events message-start ...
// message-end), v2 embed and v2 rerank, with usage a test computes in advance; errors are
// Cohere's `{message}` bodies. The key is checked by the server, as Bearer.
import { chunkText, promptTokensOf, textCharsOf, usageOf } from '../server.mjs';

/** Tokens of Cohere's own prompt template: `usage.tokens.input_tokens` counts them, `billed_units` does not. */
export const TEMPLATE_TOKENS = 500;

let sequence = 0;
const nextId = () => `00000000-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;

function chatUsage(prompt, options) {
  const usage = usageOf(prompt, options);
  return {
    billed_units: { input_tokens: usage.prompt, output_tokens: usage.completion },
    tokens: { input_tokens: usage.prompt + TEMPLATE_TOKENS, output_tokens: usage.completion },
  };
}

function chat(req, body, options, send) {
  const id = nextId();
  const prompt = promptTokensOf(textCharsOf(body));
  const contents = options.echoHeaders ? [JSON.stringify(req.headers)] : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const usage = options.nousage ? {} : { usage: chatUsage(prompt, options) };
  if (body.stream !== true) {
    if (options.badsse) return send.json(200, '{"id":"broken", this is not json');
    const message = { role: 'assistant', content: [{ type: 'text', text: contents.join('') }] };
    return send.json(200, JSON.stringify({ id, finish_reason: 'COMPLETE', message, ...usage }));
  }
  const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  send.stream(
    {
      head:
        event({ id, type: 'message-start', delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } }) +
        event({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } }),
      chunk: (text) => event({ type: 'content-delta', index: 0, delta: { message: { content: { text } } } }),
      tail: event({ type: 'content-end', index: 0 }) + event({ type: 'message-end', delta: { finish_reason: 'COMPLETE', ...usage } }),
      badLine: 'event: content-delta\ndata: {"type":"content-delta", this is not json\n\n',
    },
    contents,
  );
}

/** Deterministic vectors (as the OpenAI route's), `output_dimension` or `dims` long, billed ceil(characters / 4). */
function embed(body, options, send) {
  if (!Array.isArray(body.texts) || body.texts.some((text) => typeof text !== 'string'))
    return send.error(400, 'invalid request: texts must be a list of strings');
  const dims = Number.isInteger(body.output_dimension) && body.output_dimension > 0 && body.output_dimension <= 4096 ? body.output_dimension : options.dims;
  const floats = body.texts.map((_, index) => Array.from({ length: dims }, (__, d) => (((index + 1) * (d + 3)) % 17) / 17));
  const tokens = usageOf(promptTokensOf(body.texts.reduce((sum, text) => sum + text.length, 0)), options).prompt;
  const billed = options.nousage ? {} : { billed_units: { input_tokens: tokens } };
  send.json(200, JSON.stringify({ id: nextId(), embeddings: { float: floats }, texts: body.texts, meta: { api_version: { version: '2' }, ...billed } }));
}

/** Each document scored by the words it shares with the query (as the Jina route scores), best first, `top_n`; indexes and scores only. */
function rerank(body, send) {
  if (typeof body.query !== 'string' || !Array.isArray(body.documents)) return send.error(400, 'invalid request: query and documents are required');
  const words = new Set(body.query.toLowerCase().split(/\W+/).filter(Boolean));
  const results = body.documents.map((document, index) => {
    const shared = String(document)
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => words.has(word)).length;
    return { index, relevance_score: Math.round((shared / (shared + 1)) * 1e6) / 1e6 };
  });
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const topN = Number.isInteger(body.top_n) && body.top_n > 0 ? body.top_n : results.length;
  send.json(200, JSON.stringify({ id: nextId(), results: results.slice(0, topN), meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } }));
}

export const cohereRoutes = {
  flavor: 'cohere',

  match(method, path) {
    if (method !== 'POST') return undefined;
    if (path === '/v2/chat') return 'cohere.chat';
    if (path === '/v2/embed') return 'cohere.embed';
    if (path === '/v2/rerank') return 'cohere.rerank';
    return undefined;
  },

  /** Cohere's error body: `{"message": "..."}`. */
  errorBody: (_status, message) => JSON.stringify({ message }),

  respond(req, res, { kind, body, options, send }) {
    if (kind === 'cohere.chat') return chat(req, body, options, send);
    if (kind === 'cohere.embed') return embed(body, options, send);
    return rerank(body, send);
  },
};
