// Cloudflare Workers AI's OpenAI-compatible endpoints (README.md "Cloudflare"): chat completions and
// embeddings under `/client/v4/accounts/{account id}/ai/v1/`, answered as the OpenAI routes answer
// (usage in a stream when `stream_options.include_usage` asks for it); errors in Cloudflare's API
// envelope. The key is checked by the server, as Bearer.
import { chunkText, embeddingBody, openAiChat, promptTokensOf, textCharsOf } from '../server.mjs';

const PATH = /^\/client\/v4\/accounts\/[^/]+\/ai\/v1\/(chat\/completions|embeddings)$/;
const MODELS = /^\/client\/v4\/accounts\/[^/]+\/ai\/models\/search$/;
/** The model catalogue the mock's account lists. */
const CATALOGUE = ['@cf/meta/llama-3.1-8b-instruct', '@cf/baai/bge-base-en-v1.5'];

export const cloudflareRoutes = {
  flavor: 'cloudflare',

  match(method, path) {
    if (method === 'GET' && MODELS.test(path)) return 'cloudflare.models';
    const match = method === 'POST' ? PATH.exec(path) : null;
    if (!match) return undefined;
    return match[1] === 'embeddings' ? 'cloudflare.embeddings' : 'cloudflare.chat';
  },

  /** Cloudflare's API envelope; code 10000 is its authentication error, other failures carry the HTTP status. */
  errorBody: (status, message) => JSON.stringify({ success: false, errors: [{ code: status === 401 ? 10000 : status, message }], messages: [], result: null }),

  respond(req, res, { kind, model, body, options, send }) {
    if (kind === 'cloudflare.models') {
      return send.json(
        200,
        JSON.stringify({ success: true, errors: [], messages: [], result: CATALOGUE.map((name) => ({ name, task: { name: 'Text Generation' } })) }),
      );
    }
    const prompt = promptTokensOf(textCharsOf(body));
    if (kind === 'cloudflare.embeddings') return send.json(200, embeddingBody(model, body, options, prompt));
    const contents = options.echoHeaders
      ? [JSON.stringify(req.headers)]
      : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
    const proto = openAiChat(model, options, contents, prompt, body.stream_options?.include_usage === true);
    if (body.stream !== true) return send.json(200, options.badsse ? '{"id":"broken", this is not json' : proto.body());
    send.stream(proto, contents);
  },
};
