// OpenAI's Responses API: POST /v1/responses (whole, or the typed event stream), and the stored
// responses (GET, DELETE, input_items). Also under Azure's `/openai/v1/responses`.
import { chunkText, promptTokensOf, textCharsOf, usageOf } from '../server.mjs';

const stored = new Map();
let sequence = 0;

function usageJson(prompt, options) {
  const usage = usageOf(prompt, options);
  return {
    input_tokens: usage.prompt,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.prompt + usage.completion,
  };
}

function responseObject(id, model, status, text, usage) {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output:
      text === null
        ? []
        : [{ type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    ...(status === 'incomplete' ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
    usage,
  };
}

export const responsesRoutes = {
  match(method, path) {
    const local = path.startsWith('/openai/v1/') ? path.slice('/openai'.length) : path;
    if (method === 'POST' && local === '/v1/responses') return 'responses.create';
    if (/^\/v1\/responses\/[^/]+$/.test(local)) return method === 'GET' ? 'responses.get' : method === 'DELETE' ? 'responses.delete' : undefined;
    if (method === 'GET' && /^\/v1\/responses\/[^/]+\/input_items$/.test(local)) return 'responses.input_items';
    return undefined;
  },

  respond(req, res, { kind, path, model, body, options, send }) {
    const id = decodeURIComponent(path.split('/')[path.split('/').indexOf('responses') + 1] ?? '');
    if (kind === 'responses.get') {
      const found = stored.get(id);
      return found ? send.json(200, JSON.stringify(found.response)) : send.error(404, `No response found with id '${id}'.`);
    }
    if (kind === 'responses.input_items') {
      const found = stored.get(id);
      return found ? send.json(200, JSON.stringify({ object: 'list', data: found.input })) : send.error(404, `No response found with id '${id}'.`);
    }
    if (kind === 'responses.delete') {
      if (!stored.delete(id)) return send.error(404, `No response found with id '${id}'.`);
      return send.json(200, JSON.stringify({ id, object: 'response', deleted: true }));
    }

    const responseId = `resp_mock${++sequence}`;
    const prompt = promptTokensOf(textCharsOf(body));
    const contents = Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
    const text = contents.join('');
    const status = options.incomplete ? 'incomplete' : 'completed';
    const usage = options.nousage ? null : usageJson(prompt, options);
    const response = responseObject(responseId, model, status, text, usage);
    if (body.store !== false)
      stored.set(responseId, {
        response,
        input: typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: body.input }] }] : body.input,
      });
    if (body.stream !== true) return send.json(200, JSON.stringify(response));

    let seq = 0;
    const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
    const itemId = `msg_${responseId}`;
    const started = responseObject(responseId, model, 'in_progress', null, null);
    const proto = {
      head:
        event('response.created', { response: started }) +
        event('response.in_progress', { response: started }) +
        event('response.output_item.added', { output_index: 0, item: { type: 'message', id: itemId, status: 'in_progress', role: 'assistant', content: [] } }) +
        event('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
      chunk: (delta) => event('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta }),
      // A getter: the sequence numbers follow the chunks', which are built before it is read.
      get tail() {
        return (
          event('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text }) +
          event('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } }) +
          event('response.output_item.done', { output_index: 0, item: response.output[0] }) +
          event(`response.${status}`, { response })
        );
      },
      badLine: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta", this is not json\n\n',
    };
    send.stream(proto, contents);
  },
};
