// Alibaba Cloud DashScope (README.md "Ali DashScope"): the OpenAI-compatible mode's chat completions
// and embeddings under `/compatible-mode/v1/` (OpenAI's answers; embeddings in floats only, as the
// mode documents) with OpenAI-shaped errors, and the native API (text-rerank, text-to-image tasks
// and their images) with DashScope's `{code, message, request_id}` errors: two modules, one per
// error shape. The key is checked by the server, as Bearer.
import { chunkText, embeddingBody, openAiChat, promptTokensOf, textCharsOf, usageOf } from '../server.mjs';
import { advanceTask, initialTask } from './midjourney.mjs';

const COMPATIBLE = /^\/compatible-mode\/v1\/(chat\/completions|embeddings)$/;
const RERANK = '/api/v1/services/rerank/text-rerank/text-rerank';
const IMAGE_SUBMIT = '/api/v1/services/aigc/text2image/image-synthesis';
const TASK = /^\/api\/v1\/tasks\/([^/]+)$/;
const IMAGE = /^\/ali\/images\/([\w-]+)\.png$/;

/** The smallest valid PNG: one transparent pixel (every generated image). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

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

/** The instance's image tasks. */
function imageTasks(state) {
  state.aliImages ??= { tasks: new Map(), sequence: 0 };
  return state.aliImages;
}

/**
 * `POST .../image-synthesis`: checked as DashScope checks it (the async header, a prompt, `n` 1 to 4
 * and 4 when absent, a `W*H` size), then a task that is PENDING now, RUNNING for `tasksteps` polls,
 * then SUCCEEDED with `n` images served here (or FAILED at poll `taskfail`, RUNNING forever with
 * `taskstuck`): the task lifecycle of routes/midjourney.mjs.
 */
function submitImageTask(req, body, options, state, send) {
  if (req.headers['x-dashscope-async'] !== 'enable') return send.error(403, 'current user api does not support synchronous calls');
  const prompt = body.input?.prompt;
  if (typeof body.model !== 'string' || typeof prompt !== 'string' || prompt.trim() === '') return send.error(400, 'model and input.prompt are required');
  const n = body.parameters?.n ?? 4;
  if (!Number.isInteger(n) || n < 1 || n > 4) return send.error(400, 'parameters.n must be an integer from 1 to 4');
  const size = body.parameters?.size;
  if (size !== undefined && !/^\d+\*\d+$/.test(String(size))) return send.error(400, `parameters.size ${JSON.stringify(size)} is not width*height`);
  const images = imageTasks(state);
  const id = `00000000-0000-4000-b000-${String(++images.sequence).padStart(12, '0')}`;
  images.tasks.set(id, { id, n, prompt, life: initialTask(options), base: `http://${req.headers.host}` });
  send.json(200, JSON.stringify({ output: { task_status: 'PENDING', task_id: id }, request_id: requestId() }));
}

const TASK_STATUSES = { IN_PROGRESS: 'RUNNING', SUCCESS: 'SUCCEEDED', FAILURE: 'FAILED' };

/** `GET /api/v1/tasks/{id}`: each poll moves the task one step; an id the mock never gave is UNKNOWN, as DashScope answers an expired one. */
function pollImageTask(id, state, send) {
  const task = imageTasks(state).tasks.get(id);
  if (!task) return send.json(200, JSON.stringify({ request_id: requestId(), output: { task_id: id, task_status: 'UNKNOWN' } }));
  const step = advanceTask(task.life, []);
  const output = { task_id: id, task_status: TASK_STATUSES[step.status] ?? 'PENDING' };
  let usage;
  if (output.task_status === 'SUCCEEDED') {
    output.results = Array.from({ length: task.n }, (_, index) => ({ url: `${task.base}/ali/images/${id}-${index + 1}.png`, orig_prompt: task.prompt }));
    output.task_metrics = { TOTAL: task.n, SUCCEEDED: task.n, FAILED: 0 };
    usage = { image_count: task.n };
  } else if (output.task_status === 'FAILED') {
    Object.assign(output, { code: 'DataInspectionFailed', message: step.failReason });
  }
  send.json(200, JSON.stringify({ request_id: requestId(), output, ...(usage ? { usage } : {}) }));
}

export const aliNativeRoutes = {
  flavor: 'ali',

  match(method, path) {
    if (method === 'POST') return path === RERANK ? 'ali.rerank' : path === IMAGE_SUBMIT ? 'ali.image' : undefined;
    if (method === 'GET') return TASK.test(path) ? 'ali.task' : IMAGE.test(path) ? 'ali.image-file' : undefined;
    return undefined;
  },

  /** The native API's errors: `{code, message, request_id}` (InvalidApiKey for a bad key). */
  errorBody: (status, message) =>
    JSON.stringify({ code: nativeCodes[status] ?? (status >= 500 ? 'InternalError' : 'BadRequest'), message, request_id: requestId() }),

  respond(req, res, { kind, path, body, options, state, send }) {
    if (kind === 'ali.image') return submitImageTask(req, body, options, state, send);
    if (kind === 'ali.task') return pollImageTask(decodeURIComponent(TASK.exec(path)[1]), state, send);
    if (kind === 'ali.image-file') return send.bytes('image/png', PNG);
    rerank(body, options, send);
  },
};
