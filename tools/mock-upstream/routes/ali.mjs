// Alibaba Cloud DashScope (README.md "Ali DashScope"): the OpenAI-compatible mode's chat completions
// and embeddings under `/compatible-mode/v1/` (OpenAI's answers; embeddings in floats only, as the
// mode documents) with OpenAI-shaped errors, and the native text-rerank service with DashScope's
// `{code, message, request_id}` errors: two modules, one per error shape. The key is checked by the
// server, as Bearer.
import { chunkText, embeddingBody, openAiChat, promptTokensOf, textCharsOf, usageOf } from '../server.mjs';

const COMPATIBLE = /^\/compatible-mode\/v1\/(chat\/completions|embeddings)$/;
const RERANK = '/api/v1/services/rerank/text-rerank/text-rerank';

let sequence = 0;
const requestId = () => `00000000-0000-4000-a000-${String(++sequence).padStart(12, '0')}`;

const compatibleCodes = { 400: 'invalid_parameter_error', 401: 'invalid_api_key', 404: 'model_not_found', 429: 'limit_requests' };
const nativeCodes = { 400: 'InvalidParameter', 401: 'InvalidApiKey', 403: 'AccessDenied', 404: 'ModelNotFound', 429: 'Throttling.RateQuota' };

export const aliCompatibleRoutes = {
  flavor: 'ali-compatible',

  match(method, path) {
    const match = method === 'POST' ? COMPATIBLE.exec(path) : null;
    if (!match) return undefined;
    return match[1] === 'embeddings' ? 'ali.embeddings' : 'ali.chat';
  },

  /** The compatible mode's errors: OpenAI's body and DashScope's request id. */
  errorBody: (status, message) =>
    JSON.stringify({
      error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: compatibleCodes[status] ?? 'internal_error' },
      request_id: requestId(),
    }),

  respond(req, res, { kind, model, body, options, send }) {
    const prompt = promptTokensOf(textCharsOf(body));
    if (kind === 'ali.embeddings') {
      if (body.encoding_format !== undefined && body.encoding_format !== 'float') return send.error(400, 'encoding_format: only float is supported');
      return send.json(200, embeddingBody(model, body, options, prompt));
    }
    const contents = options.echoHeaders
      ? [JSON.stringify(req.headers)]
      : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
    const proto = openAiChat(model, options, contents, prompt, body.stream_options?.include_usage === true);
    if (body.stream !== true) return send.json(200, options.badsse ? '{"id":"broken", this is not json' : proto.body());
    send.stream(proto, contents);
  },
};

/** Each document scored by the words it shares with the query (as the Jina route scores), best first, `top_n` of them. */
function rerank(body, options, send) {
  const input = body.input;
  if (typeof input?.query !== 'string' || !Array.isArray(input.documents) || input.documents.some((document) => typeof document !== 'string')) {
    return send.error(400, 'input.query and input.documents (strings) are required');
  }
  const words = new Set(input.query.toLowerCase().split(/\W+/).filter(Boolean));
  const withDocuments = body.parameters?.return_documents === true;
  const results = input.documents.map((document, index) => {
    const shared = document
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => words.has(word)).length;
    return { index, relevance_score: Math.round((shared / (shared + 1)) * 1e6) / 1e6, ...(withDocuments ? { document: { text: document } } : {}) };
  });
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const topN = Number.isInteger(body.parameters?.top_n) && body.parameters.top_n > 0 ? body.parameters.top_n : results.length;
  // Tokens as Jina's rerank counts them: the query once per document, and each document.
  const chars = input.documents.reduce((sum, document) => sum + input.query.length + document.length, 0);
  const usage = options.nousage ? {} : { usage: { total_tokens: usageOf(promptTokensOf(chars), options).prompt } };
  send.json(200, JSON.stringify({ output: { results: results.slice(0, topN) }, ...usage, request_id: requestId() }));
}

export const aliNativeRoutes = {
  flavor: 'ali',

  match(method, path) {
    return method === 'POST' && path === RERANK ? 'ali.rerank' : undefined;
  },

  /** The native API's errors: `{code, message, request_id}` (InvalidApiKey for a bad key). */
  errorBody: (status, message) =>
    JSON.stringify({ code: nativeCodes[status] ?? (status >= 500 ? 'InternalError' : 'BadRequest'), message, request_id: requestId() }),

  respond(req, res, { body, options, send }) {
    rerank(body, options, send);
  },
};
