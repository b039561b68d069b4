// Mock AI upstream: OpenAI-, Anthropic- and Gemini-compatible, deterministic usage, configurable
// latency, chunk count and cadence, and failure modes. Used by the tests and by the benchmark
// (tools/bench/run.mjs), so the hot path stays lean: plain node:http, one JSON.parse per request,
// and each stream's chunk strings built once per request, not once per chunk.
//
// Behaviour per request, from the server defaults, then the options of the request's API key, then
// the `x-mock` header, then the body's `mock` field, then the model name suffix (the last wins;
// each is `key=value,flag,...`):
//   mock-gpt@chunks=50,delay=20        mock-gpt@status=429        mock-gpt@cut=3,nousage
// The model suffix survives a relay that forwards only the body. See README.md for every option.
import http from 'node:http';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { routeModules } from './routes/index.mjs';

/** One word of generated text; every word is exactly one token for cl100k/o200k ("hello", " hello"). */
const WORD = 'hello';
const DEFAULT_MODELS = ['mock-gpt', 'mock-gpt-mini', 'mock-embed', 'mock-claude', 'mock-gemini'];
const MAX_BODY_BYTES = 32 * 1024 * 1024;

const baseOptions = Object.freeze({
  chunks: 4, // content chunks in the answer (streamed or not)
  words: 1, // words (= tokens) per chunk
  delay: 0, // ms between chunks
  latency: 0, // ms before the response headers
  status: 0, // answer this HTTP status with a provider-shaped error body
  hang: false, // read the request, never answer
  slowdrip: false, // send the response one byte every `drip` ms
  drip: 1000,
  cut: -1, // close the connection after K content chunks (no usage, no end)
  nousage: false, // no usage anywhere
  negusage: false, // usage with negative numbers
  badsse: false, // a non-JSON data line after the first chunk (non-stream: an invalid JSON body)
  hugeline: 0, // one extra chunk whose content is this many 'x' (SSE line length tests)
  echoHeaders: false, // the answer's content is the JSON of the received headers
  redirect: '', // 302 to this URL
  dims: 8, // embedding dimensions (the body's `dimensions` wins)
  cacheread: 0, // Anthropic: cache_read_input_tokens reported (beside input_tokens)
  cachewrite: 0, // Anthropic: cache_creation_input_tokens reported
  hardLimit: -1, // billing: hard_limit_usd of the subscription (-1 = the server's `billing` figure)
  totalUsage: -1, // billing: total_usage in US cents (-1 = the server's `billing` figure)
  nobilling: false, // the billing endpoints answer 404, as an upstream without them
  incomplete: false, // Responses API: the answer ends `incomplete` (max_output_tokens), with its usage
  tasksteps: 3, // Midjourney and Suno tasks: polls answering IN_PROGRESS before the one answering SUCCESS
  taskfail: 0, // Midjourney and Suno tasks: the K-th poll answers FAILURE (0 = never)
  taskstuck: false, // Midjourney and Suno tasks: never finish (IN_PROGRESS forever)
  mjcode: 1, // Midjourney: the submit answer's code (1 success, 21 exists, 22 queued, 23 queue full, 24 banned, 3, 4, 9...)
  sunorefuse: 0, // Suno: a submit answers this HTTP status with Suno-API's error body (0 = accept)
});

/** Upper bound of the billing figures (US dollars and cents), so a typo cannot answer Infinity. */
const MAX_BILLING_FIGURE = 1e12;
const billingOptions = { 'hard-limit': 'hardLimit', hardlimit: 'hardLimit', 'total-usage': 'totalUsage', totalusage: 'totalUsage' };

const numericOptions = {
  chunks: 100_000,
  words: 10_000,
  delay: 600_000,
  latency: 600_000,
  drip: 600_000,
  cut: 100_000,
  hugeline: 64 * 1024 * 1024,
  dims: 4096,
  cacheread: 100_000_000,
  cachewrite: 100_000_000,
  tasksteps: 1000,
  taskfail: 100_000,
  mjcode: 99,
  sunorefuse: 599,
};
const flagOptions = {
  hang: 'hang',
  slowdrip: 'slowdrip',
  nousage: 'nousage',
  negusage: 'negusage',
  badsse: 'badsse',
  incomplete: 'incomplete',
  'echo-headers': 'echoHeaders',
  echoheaders: 'echoHeaders',
  nobilling: 'nobilling',
  'no-billing': 'nobilling',
  taskstuck: 'taskstuck',
};

class MockOptionError extends Error {}

/**
 * Parses `key=value,flag,...` (`;` separates too, for names that go into comma-separated lists; or an object of the same keys) onto `into`. Throws MockOptionError
 * on an unknown key or a bad value, so a typo fails loudly instead of silently testing nothing.
 */
export function parseMockOptions(spec, into = { ...baseOptions }) {
  if (spec === undefined || spec === null || spec === '') return into;
  const entries =
    typeof spec === 'string'
      ? spec
          .split(/[,;]/)
          .filter(Boolean)
          .map((part) => {
            const eq = part.indexOf('=');
            return eq < 0 ? [part.trim(), true] : [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
          })
      : Object.entries(spec);
  for (const [rawKey, value] of entries) {
    const key = rawKey.toLowerCase();
    if (key in numericOptions) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > numericOptions[key])
        throw new MockOptionError(`mock option ${key} must be an integer from 0 to ${numericOptions[key]}`);
      into[key] = n;
    } else if (key === 'status' || key === 'fail') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 200 || n > 599) throw new MockOptionError(`mock option ${key} must be an HTTP status`);
      into.status = n === 200 ? 0 : n;
    } else if (key in flagOptions) {
      into[flagOptions[key]] = value === true || value === 'true' || value === '1';
    } else if (key === 'redirect') {
      into.redirect = value === true ? 'http://127.0.0.1:9/' : String(value);
    } else if (key === 'huge-line') {
      into.hugeline = value === true ? 1024 * 1024 : Number(value);
    } else if (key in billingOptions) {
      // Dollars and cents: fractions allowed (OpenAI's total_usage has them).
      const n = value === true ? NaN : Number(value);
      if (!Number.isFinite(n) || n < 0 || n > MAX_BILLING_FIGURE)
        throw new MockOptionError(`mock option ${key} must be a number from 0 to ${MAX_BILLING_FIGURE}`);
      into[billingOptions[key]] = n;
    } else {
      throw new MockOptionError(
        `unknown mock option "${rawKey}" (known: ${[...Object.keys(numericOptions), 'status', 'fail', 'redirect', 'huge-line', 'hard-limit', 'total-usage', ...Object.keys(flagOptions)].join(', ')})`,
      );
    }
  }
  return into;
}

/** Splits `name@opts` into the model name and its options string. */
export function splitModel(model) {
  const at = typeof model === 'string' ? model.indexOf('@') : -1;
  return at < 0 ? [model, ''] : [model.slice(0, at), model.slice(at + 1)];
}

/** Deterministic prompt tokens: ceil(characters of all text / 4), plus one per pre-tokenized id. */
export function promptTokensOf(chars) {
  return Math.ceil(chars / 4);
}

/** Characters of all text of a request body (OpenAI chat/completions/embeddings, Anthropic, Gemini). */
export function textCharsOf(body) {
  if (!body || typeof body !== 'object') return 0;
  let chars = 0;
  if (Array.isArray(body.messages)) for (const message of body.messages) chars += contentChars(message?.content);
  if (body.system !== undefined) chars += contentChars(body.system);
  if (body.prompt !== undefined) chars += inputChars(body.prompt);
  if (body.input !== undefined) chars += inputChars(body.input);
  if (typeof body.instructions === 'string') chars += body.instructions.length; // Responses API
  // Rerank (Jina's shape): the query once per document, and each document.
  if (typeof body.query === 'string' && Array.isArray(body.documents)) {
    for (const document of body.documents) chars += body.query.length + (typeof document === 'string' ? document.length : String(document?.text ?? '').length);
  }
  if (body.systemInstruction) chars += partsChars(body.systemInstruction.parts);
  if (Array.isArray(body.contents)) for (const content of body.contents) chars += partsChars(content?.parts);
  return chars;
}

function contentChars(content) {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const part of content) if (part && typeof part.text === 'string') chars += part.text.length;
  return chars;
}

function partsChars(parts) {
  if (!Array.isArray(parts)) return 0;
  let chars = 0;
  for (const part of parts) if (part && typeof part.text === 'string') chars += part.text.length;
  return chars;
}

/** A string, strings, token ids (4 characters each, so each id is one token) or arrays of ids. */
function inputChars(input) {
  if (typeof input === 'string') return input.length;
  if (typeof input === 'number') return 4;
  // A Responses API input item: a message with string or part content.
  if (input && typeof input === 'object' && !Array.isArray(input)) return contentChars(input.content);
  if (!Array.isArray(input)) return 0;
  let chars = 0;
  for (const item of input) chars += inputChars(item);
  return chars;
}

/** Text of chunk `index` (0-based): "hello" then " hello", `words` times. */
export function chunkText(index, words) {
  return index === 0 ? WORD + ` ${WORD}`.repeat(words - 1) : ` ${WORD}`.repeat(words);
}

/** The usage a request gets: the numbers a test can compute in advance. */
export function usageOf(prompt, options) {
  const completion = options.echoHeaders ? 1 : options.chunks * options.words;
  return options.negusage ? { prompt: -prompt, completion: -completion } : { prompt, completion };
}

// ---------------------------------------------------------------------------------------------
// Protocols. Each builds, once per request, the strings of its answer:
//   body()              the non-streaming JSON
//   head, chunk(i), tail(usage)  the SSE pieces (tail without usage when `nousage`)

let sequence = 0;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export function openAiChat(model, options, contents, prompt, wantsUsage) {
  const id = `chatcmpl-mock${++sequence}`;
  const pre = `data: {"id":"${id}","object":"chat.completion.chunk","created":${nowSeconds()},"model":${JSON.stringify(model)},"choices":[`;
  const usage = usageOf(prompt, options);
  const usageJson = `{"prompt_tokens":${usage.prompt},"completion_tokens":${usage.completion},"total_tokens":${usage.prompt + usage.completion}}`;
  return {
    contentType: 'application/json',
    body: () =>
      `{"id":"${id}","object":"chat.completion","created":${nowSeconds()},"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(contents.join(''))},"refusal":null},"logprobs":null,"finish_reason":"stop"}]${options.nousage ? '' : `,"usage":${usageJson}`}}`,
    head: `${pre}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`,
    chunk: (text) => `${pre}{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}\n\n`,
    tail:
      `${pre}{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n` +
      (wantsUsage && !options.nousage ? `${pre}],"usage":${usageJson}}\n\n` : '') +
      'data: [DONE]\n\n',
    badLine: 'data: {"id":"broken", this is not json\n\n',
  };
}

function openAiCompletion(model, options, contents, prompt, wantsUsage) {
  const id = `cmpl-mock${++sequence}`;
  const pre = `data: {"id":"${id}","object":"text_completion","created":${nowSeconds()},"model":${JSON.stringify(model)},"choices":[`;
  const usage = usageOf(prompt, options);
  const usageJson = `{"prompt_tokens":${usage.prompt},"completion_tokens":${usage.completion},"total_tokens":${usage.prompt + usage.completion}}`;
  return {
    contentType: 'application/json',
    body: () =>
      `{"id":"${id}","object":"text_completion","created":${nowSeconds()},"model":${JSON.stringify(model)},"choices":[{"text":${JSON.stringify(contents.join(''))},"index":0,"logprobs":null,"finish_reason":"stop"}]${options.nousage ? '' : `,"usage":${usageJson}`}}`,
    head: '',
    chunk: (text) => `${pre}{"text":${JSON.stringify(text)},"index":0,"logprobs":null,"finish_reason":null}]}\n\n`,
    tail:
      `${pre}{"text":"","index":0,"logprobs":null,"finish_reason":"stop"}]}\n\n` +
      (wantsUsage && !options.nousage ? `${pre}],"usage":${usageJson}}\n\n` : '') +
      'data: [DONE]\n\n',
    badLine: 'data: {"id":"broken", this is not json\n\n',
  };
}

export function anthropicMessages(model, options, contents, prompt) {
  const id = `msg_mock${++sequence}`;
  const usage = usageOf(prompt, options);
  const event = (name, data) => `event: ${name}\ndata: ${data}\n\n`;
  // Prompt-cache counts, as Anthropic reports them beside (not inside) input_tokens.
  const cache =
    options.cacheread || options.cachewrite ? `,"cache_read_input_tokens":${options.cacheread},"cache_creation_input_tokens":${options.cachewrite}` : '';
  const startUsage = options.nousage ? '' : `,"usage":{"input_tokens":${usage.prompt}${cache},"output_tokens":1}`;
  return {
    contentType: 'application/json',
    body: () =>
      `{"id":"${id}","type":"message","role":"assistant","model":${JSON.stringify(model)},"content":[{"type":"text","text":${JSON.stringify(contents.join(''))}}],"stop_reason":"end_turn","stop_sequence":null${options.nousage ? '' : `,"usage":{"input_tokens":${usage.prompt}${cache},"output_tokens":${usage.completion}}`}}`,
    head:
      event(
        'message_start',
        `{"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant","model":${JSON.stringify(model)},"content":[],"stop_reason":null,"stop_sequence":null${startUsage}}}`,
      ) +
      event('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
      event('ping', '{"type":"ping"}'),
    chunk: (text) => event('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}`),
    tail:
      event('content_block_stop', '{"type":"content_block_stop","index":0}') +
      event(
        'message_delta',
        `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null}${options.nousage ? '' : `,"usage":{"output_tokens":${usage.completion}}`}}`,
      ) +
      event('message_stop', '{"type":"message_stop"}'),
    badLine: 'event: content_block_delta\ndata: {"type":"content_block_delta", this is not json\n\n',
  };
}

/** Gemini: SSE events end with CRLF CRLF like Google's; without alt=sse the stream is a JSON array. */
export function gemini(model, options, contents, prompt, sse) {
  const usage = usageOf(prompt, options);
  const usageJson = options.nousage
    ? ''
    : `,"usageMetadata":{"promptTokenCount":${usage.prompt},"candidatesTokenCount":${usage.completion},"totalTokenCount":${usage.prompt + usage.completion}}`;
  const candidate = (text, done) =>
    `{"candidates":[{"content":{"parts":[{"text":${JSON.stringify(text)}}],"role":"model"}${done ? ',"finishReason":"STOP"' : ''},"index":0}]${done ? usageJson : ''},"modelVersion":${JSON.stringify(model)}}`;
  return {
    contentType: 'application/json',
    body: () => candidate(contents.join(''), true),
    head: sse ? '' : '[',
    chunk: (text) => (sse ? `data: ${candidate(text, false)}\r\n\r\n` : `${candidate(text, false)},\r\n`),
    tail: sse ? `data: ${candidate('', true)}\r\n\r\n` : `${candidate('', true)}]`,
    badLine: sse ? 'data: {"candidates": this is not json\r\n\r\n' : '{"candidates": this is not json,\r\n',
  };
}

// ---------------------------------------------------------------------------------------------
// Errors in each provider's shape.

const errorTypes = {
  401: ['invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'],
  403: ['permission_denied', 'permission_error', 'PERMISSION_DENIED'],
  404: ['not_found', 'not_found_error', 'NOT_FOUND'],
  429: ['rate_limit_exceeded', 'rate_limit_error', 'RESOURCE_EXHAUSTED'],
  529: ['overloaded', 'overloaded_error', 'UNAVAILABLE'],
};

/** Route modules with their own error shape (`errorBody(status, message)`), by flavor. */
const moduleErrorBodies = new Map(routeModules.filter((module) => module.errorBody).map((module) => [module.flavor, module.errorBody]));

function errorBody(flavor, status, message) {
  const own = moduleErrorBodies.get(flavor);
  if (own) return own(status, message);
  const [code, anthropicType, googleStatus] =
    errorTypes[status] ?? (status >= 500 ? ['server_error', 'api_error', 'INTERNAL'] : ['invalid_request', 'invalid_request_error', 'INVALID_ARGUMENT']);
  if (flavor === 'anthropic') return JSON.stringify({ type: 'error', error: { type: anthropicType, message } });
  if (flavor === 'gemini') return JSON.stringify({ error: { code: status, message, status: googleStatus } });
  return JSON.stringify({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code } });
}

function sendError(res, flavor, status, message) {
  const body = errorBody(flavor, status, message);
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (status === 429) headers['retry-after'] = '1';
  res.writeHead(status, headers);
  res.end(body);
}

// ---------------------------------------------------------------------------------------------
// Sending.

/** Writes `text` (or bytes) one byte every `drip` ms (slowdrip). */
function drip(res, text, interval, done) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= bytes.length) {
      clearInterval(timer);
      if (!res.destroyed) done();
      return;
    }
    res.write(bytes.subarray(at, at + 1));
    at++;
  }, interval);
  res.once('close', () => clearInterval(timer));
}

function sendJson(res, status, body, options) {
  if (options.slowdrip) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    drip(res, body, options.drip, () => res.end());
    return;
  }
  if (options.cut >= 0) {
    // Promise the whole body, send half, then drop the connection.
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };

/** Streams head, the content chunks `delay` ms apart, then tail; honours cut, badsse, slowdrip. */
function sendStream(res, proto, contents, options, contentType = SSE_HEADERS) {
  res.writeHead(200, contentType);
  if (options.slowdrip) {
    drip(res, proto.head + contents.map(proto.chunk).join('') + proto.tail, options.drip, () => res.end());
    return;
  }
  const chunks = contents.map(proto.chunk);
  if (options.hugeline > 0) chunks.splice(1, 0, proto.chunk('x'.repeat(options.hugeline)));
  if (options.badsse) chunks.splice(1, 0, proto.badLine);
  const cutAt = options.cut >= 0 ? Math.min(options.cut, chunks.length) : -1;
  if (options.delay === 0) {
    if (cutAt >= 0) {
      res.write(proto.head + chunks.slice(0, cutAt).join(''), () => res.socket?.destroy());
    } else {
      res.end(proto.head + chunks.join('') + proto.tail);
    }
    return;
  }
  // The head and the first chunk go at once; each next chunk `delay` ms later.
  let next = 0;
  let timer;
  const step = () => {
    timer = undefined;
    if (res.destroyed) return;
    const head = next === 0 ? proto.head : '';
    if (next === cutAt) {
      res.write(head, () => res.socket?.destroy());
    } else if (next === chunks.length) {
      res.end(head + proto.tail);
    } else {
      res.write(head + chunks[next++]);
      timer = setTimeout(step, options.delay);
    }
  };
  res.once('close', () => timer && clearTimeout(timer));
  step();
}

/**
 * A multipart body as the route modules read it: each text field by name (repeated names, such as
 * `image[]`, as arrays), each file as a WHATWG File (name, type, size, bytes()).
 */
async function formBody(raw, contentType) {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  const body = {};
  for (const [name, value] of form) {
    if (!(name in body)) body[name] = value;
    else body[name] = [].concat(body[name], value);
  }
  return body;
}

/** What a route module sends with: the same bodies, failure modes and cadence as the built-in routes. */
function senders(res, flavor, options) {
  return {
    json: (status, text) => sendJson(res, status, text, options),
    error: (status, message) => sendError(res, flavor, status, message),
    /** An SSE stream: `proto` is `{ head, chunk(content), tail, badLine }`, `contents` the chunks' texts. */
    stream: (proto, contents, headers) => sendStream(res, proto, contents, options, headers),
    /** Bytes with a content type, honouring slowdrip and cut. */
    bytes: (contentType, buffer) => sendBytes(res, contentType, buffer, options),
  };
}

function sendBytes(res, contentType, buffer, options) {
  const headers = { 'content-type': contentType, 'content-length': buffer.length };
  res.writeHead(200, headers);
  if (options.cut >= 0) return res.write(buffer.subarray(0, Math.floor(buffer.length / 2)), () => res.socket?.destroy());
  if (options.slowdrip) return drip(res, buffer, options.drip, () => res.end());
  res.end(buffer);
}

// ---------------------------------------------------------------------------------------------
// The server.

/**
 * Starts the mock upstream.
 * - port (0 = any free one), host ('127.0.0.1')
 * - defaults: options applied to every request (`'chunks=50,delay=20'` or `{ chunks: 50 }`)
 * - maxRecorded: how many requests `requests` keeps (oldest dropped first; 0 records none)
 * - models: the ids GET /v1/models lists
 * - apiKey: when set, requests must carry it (Bearer, x-api-key, x-goog-api-key or ?key=) or get 401
 * - billing: `{ hardLimitUsd = 100, totalUsage = 0 }`, what the billing endpoints answer (live:
 *   `mock.billing`; a request's `hard-limit`/`total-usage` options win)
 * - keys: options per API key (`{ 'sk-revoked': 'status=401' }`), applied after the defaults (live: `mock.keys`)
 */
export async function startMockUpstream(config = {}) {
  const { port = 0, host = '127.0.0.1', maxRecorded = 1000, models = DEFAULT_MODELS, apiKey } = config;
  const defaults = Object.freeze(parseMockOptions(config.defaults));
  const billing = { hardLimitUsd: config.billing?.hardLimitUsd ?? 100, totalUsage: config.billing?.totalUsage ?? 0 };
  // A null prototype, so a key such as "constructor" finds nothing.
  const keys = Object.assign(Object.create(null), config.keys);
  for (const spec of Object.values(keys)) parseMockOptions(spec); // a typo fails at start, not per request
  const requests = [];
  const modelsBody = JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'mock' })) });
  const stats = { received: 0 };
  /** The route modules' state (tasks...), per instance: passed to each module as `state`. */
  const routeState = {};

  const server = http.createServer({ noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
    stats.received++;
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', async () => {
      let body;
      let raw = '';
      try {
        if (size > MAX_BODY_BYTES) return sendError(res, 'openai', 413, 'request body too large');
        if (chunks.length > 0 && /^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
          body = await formBody(Buffer.concat(chunks), req.headers['content-type']);
        } else if (chunks.length > 0) {
          raw = chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString();
          if (/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) body = Object.fromEntries(new URLSearchParams(raw));
          else {
            try {
              body = JSON.parse(raw);
            } catch {
              body = undefined;
            }
          }
        }
        handle(req, res, body, raw);
      } catch (error) {
        if (!res.headersSent) sendError(res, 'openai', error instanceof MockOptionError ? 400 : 500, error.message);
        else res.destroy();
      }
    });
  });

  function record(req, path, body, raw, options) {
    if (maxRecorded <= 0) return;
    if (requests.length >= maxRecorded) requests.shift();
    requests.push({ time: Date.now(), method: req.method, url: req.url, path, headers: req.headers, body: body ?? raw, options });
  }

  function authorized(req, query) {
    if (!apiKey) return true;
    const bearer = req.headers.authorization;
    return (
      bearer === `Bearer ${apiKey}` ||
      req.headers['x-api-key'] === apiKey ||
      req.headers['x-goog-api-key'] === apiKey ||
      req.headers['mj-api-secret'] === apiKey || // midjourney-proxy's header
      query.get('key') === apiKey
    );
  }

  /** The options `keys` holds for the API key the request carries (in the places `apiKey` accepts), if any. */
  function keyOptions(req, query) {
    const bearer = req.headers.authorization;
    if (typeof bearer === 'string' && bearer.startsWith('Bearer ') && bearer.slice(7) in keys) return keys[bearer.slice(7)];
    for (const key of [req.headers['x-api-key'], req.headers['x-goog-api-key'], req.headers['mj-api-secret'], query.get('key')])
      if (typeof key === 'string' && key in keys) return keys[key];
    return undefined;
  }

  function handle(req, res, body, raw) {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));

    // Route and protocol.
    let flavor = 'openai';
    let kind;
    /** The route module (routes/) that serves the path, when one does. */
    let extension;
    let model = body?.model;
    if (req.method === 'POST' && path === '/v1/chat/completions') kind = 'chat';
    else if (req.method === 'POST' && path === '/v1/completions') kind = 'completion';
    else if (req.method === 'POST' && (path === '/v1/embeddings' || path === '/v1beta/openai/embeddings')) kind = 'embedding';
    else if (req.method === 'POST' && path === '/v1/rerank') kind = 'rerank';
    else if (req.method === 'POST' && path === '/v1/messages') [kind, flavor] = ['messages', 'anthropic'];
    else if (req.method === 'GET' && path === '/v1/models') kind = 'models';
    else if (req.method === 'GET' && path.startsWith('/v1/models/')) [kind, model] = ['model', decodeURIComponent(path.slice('/v1/models/'.length))];
    else if (req.method === 'GET' && path === '/v1/dashboard/billing/subscription') kind = 'subscription';
    else if (req.method === 'GET' && path === '/v1/dashboard/billing/usage') kind = 'usage';
    else if (req.method === 'GET' && path === '/healthz') kind = 'health';
    else if ((extension = routeModules.find((module) => (kind = module.match(req.method, path)) !== undefined))) {
      flavor = extension.flavor ?? 'openai';
      // Protocols that name the model in the path (Bedrock) say which it is, for its options.
      model = extension.modelOf?.(path) ?? model;
    } else if (req.method === 'POST') {
      const match = /^\/(?:v1beta|v1)\/models\/([^/]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/.exec(path);
      if (match) {
        [kind, flavor] = [match[2], 'gemini'];
        model = decodeURIComponent(match[1]);
      }
    }

    // Options: defaults < the key's < x-mock header < body.mock < model suffix.
    const [baseModel, modelOptions] = splitModel(model);
    let options = defaults;
    const keySpec = keyOptions(req, query);
    const header = req.headers['x-mock'];
    if (keySpec !== undefined || header || body?.mock !== undefined || modelOptions) {
      options = { ...defaults };
      parseMockOptions(keySpec, options);
      parseMockOptions(header, options);
      parseMockOptions(body?.mock, options);
      parseMockOptions(modelOptions, options);
    }
    record(req, path, body, raw, options);

    if (!kind) return sendError(res, flavor, 404, `mock upstream: no route for ${req.method} ${path}`);
    if (kind === 'health') return sendJson(res, 200, '{"ok":true}', baseOptions);
    if (!authorized(req, query)) return sendError(res, flavor, 401, 'mock upstream: invalid api key');
    if (req.method === 'POST' && body === undefined) return sendError(res, flavor, 400, 'mock upstream: the body is not JSON');
    if (extension && (options.redirect || options.status)) return respond(req, res, { kind, flavor, path, model, baseModel, body, options, query });

    const context = { kind, flavor, path, model, baseModel, body, raw, options, query };
    const answer = () =>
      extension ? extension.respond(req, res, { ...context, state: routeState, billing, send: senders(res, flavor, options) }) : respond(req, res, context);
    if (options.hang) return; // never answer; close() or the client ends it
    if (options.latency > 0) {
      const timer = setTimeout(answer, options.latency);
      res.once('close', () => clearTimeout(timer));
    } else {
      answer();
    }
  }

  function respond(req, res, { kind, flavor, path, model, baseModel, body, options, query }) {
    if (res.destroyed) return;
    if (options.redirect) {
      res.writeHead(302, { location: options.redirect, 'content-length': 0 });
      return res.end();
    }
    if (options.status) return sendError(res, flavor, options.status, `mock upstream: status ${options.status} as asked`);

    if (kind === 'models') return sendJson(res, 200, modelsBody, options);
    if (kind === 'model') {
      if (!models.includes(baseModel)) return sendError(res, flavor, 404, `The model '${baseModel}' does not exist`);
      return sendJson(res, 200, JSON.stringify({ id: baseModel, object: 'model', created: 1700000000, owned_by: 'mock' }), options);
    }
    if (kind === 'subscription' || kind === 'usage') {
      if (options.nobilling) return sendError(res, flavor, 404, `mock upstream: no route for ${req.method} ${path}`);
      if (kind === 'subscription') return sendJson(res, 200, subscriptionBody(options.hardLimit >= 0 ? options.hardLimit : billing.hardLimitUsd), options);
      // OpenAI refuses a usage query without its dates.
      const dates = [query.get('start_date'), query.get('end_date')];
      if (!dates.every((date) => /^\d{4}-\d{2}-\d{2}$/.test(date ?? '')))
        return sendError(res, flavor, 400, 'mock upstream: start_date and end_date (YYYY-MM-DD) are required');
      const cents = options.totalUsage >= 0 ? options.totalUsage : billing.totalUsage;
      return sendJson(res, 200, JSON.stringify({ object: 'list', daily_costs: [], total_usage: cents }), options);
    }

    const prompt = promptTokensOf(textCharsOf(body));
    if (kind === 'embedding') return sendJson(res, 200, embeddingBody(model, body, options, prompt), options);
    if (kind === 'rerank') return sendJson(res, 200, rerankBody(model, body, options, prompt), options);
    if (kind === 'embedContent' || kind === 'batchEmbedContents') return sendJson(res, 200, geminiEmbedBody(kind, body, options), options);

    const contents = options.echoHeaders
      ? [JSON.stringify(req.headers)]
      : Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
    if (options.hugeline > 0 && !body.stream && kind !== 'streamGenerateContent') contents.push('x'.repeat(options.hugeline));
    const wantsUsage = body.stream_options?.include_usage === true;
    let proto;
    if (kind === 'chat') proto = openAiChat(model, options, contents, prompt, wantsUsage);
    else if (kind === 'completion') proto = openAiCompletion(model, options, contents, prompt, wantsUsage);
    else if (kind === 'messages') proto = anthropicMessages(model, options, contents, prompt);
    else proto = gemini(model, options, contents, prompt, query.get('alt') === 'sse');

    const stream = kind === 'streamGenerateContent' || (kind !== 'generateContent' && body.stream === true);
    if (!stream) return sendJson(res, 200, options.badsse ? '{"id":"broken", this is not json' : proto.body(), options);
    if (kind === 'streamGenerateContent' && query.get('alt') !== 'sse')
      return sendStream(res, proto, contents, options, { 'content-type': 'application/json' });
    sendStream(res, proto, contents, options);
  }

  // WebSocket upgrades (README.md, "Route modules"): the first route module whose
  // `upgrade(req, socket, head, { apiKey, defaults, record })` returns true owns the socket (it
  // checks the key and records what it gets with `record`); no taker, the socket is dropped.
  // close() drops the upgraded sockets too: they are no longer the HTTP server's connections.
  const upgraded = new Set();
  server.on('upgrade', (req, socket, head) => {
    stats.received++;
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    if (!routeModules.some((module) => module.upgrade?.(req, socket, head, { apiKey, defaults, record }) === true)) socket.destroy();
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  let closing;
  return {
    url,
    port: address.port,
    requests,
    /** The route modules' per-instance state (tasks, issued tokens): tests may change it, as an upstream's own state changes. */
    state: routeState,
    stats,
    defaults,
    billing,
    keys,
    /** Forgets the recorded requests. */
    reset() {
      requests.length = 0;
    },
    /** Stops listening and drops every open connection (hanging and streaming ones too). */
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
      });
      return closing;
    },
  };
}

/** OpenAI's legacy GET /v1/dashboard/billing/subscription answer, which resellers commonly keep. */
function subscriptionBody(limitUsd) {
  return JSON.stringify({
    object: 'billing_subscription',
    has_payment_method: true,
    canceled: false,
    canceled_at: null,
    delinquent: null,
    access_until: nowSeconds() + 30 * 86_400,
    soft_limit_usd: limitUsd,
    hard_limit_usd: limitUsd,
    system_hard_limit_usd: limitUsd,
    plan: { title: 'Pay-as-you-go', id: 'payg' },
    account_name: 'mock',
  });
}

/** Deterministic unit-ish vectors; base64 (little-endian float32) when asked, like OpenAI's. */
/** Gemini's embedContent / batchEmbedContents: one vector per content (Gemini reports no usage for embeddings). */
function geminiEmbedBody(kind, body, options) {
  const vector = (index) => Array.from({ length: options.dims }, (_, d) => (((index + 1) * (d + 3)) % 17) / 17);
  if (kind === 'embedContent') return JSON.stringify({ embedding: { values: vector(0) } });
  const count = Array.isArray(body.requests) ? body.requests.length : 0;
  return JSON.stringify({ embeddings: Array.from({ length: count }, (_, index) => ({ values: vector(index) })) });
}

export function embeddingBody(model, body, options, prompt) {
  const input = body.input;
  const count = Array.isArray(input) && input.length > 0 && (typeof input[0] === 'string' || Array.isArray(input[0])) ? input.length : 1;
  const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 && body.dimensions <= 4096 ? body.dimensions : options.dims;
  const base64 = body.encoding_format === 'base64';
  const data = [];
  for (let index = 0; index < count; index++) {
    const vector = new Float32Array(dims);
    for (let d = 0; d < dims; d++) vector[d] = (((index + 1) * (d + 3)) % 17) / 17;
    data.push({ object: 'embedding', index, embedding: base64 ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector) });
  }
  const usage = options.negusage ? -prompt : prompt;
  return JSON.stringify({ object: 'list', data, model, ...(options.nousage ? {} : { usage: { prompt_tokens: usage, total_tokens: usage } }) });
}

/**
 * Jina's rerank answer: every document scored by the words it shares with the query (ties by
 * index), best first, `top_n` of them, with the text when `return_documents` is not false.
 */
function rerankBody(model, body, options, prompt) {
  const words = new Set(
    String(body.query ?? '')
      .toLowerCase()
      .split(/\W+/)
      .filter(Boolean),
  );
  const documents = Array.isArray(body.documents) ? body.documents : [];
  const scored = documents.map((document, index) => {
    const text = typeof document === 'string' ? document : String(document?.text ?? '');
    const shared = text
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => words.has(word)).length;
    return { index, relevance_score: Math.round((shared / (shared + 1)) * 1e6) / 1e6, ...(body.return_documents === false ? {} : { document: { text } }) };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const topN = Number.isInteger(body.top_n) && body.top_n > 0 ? body.top_n : scored.length;
  const usage = options.negusage ? -prompt : prompt;
  return JSON.stringify({ model, results: scored.slice(0, topN), ...(options.nousage ? {} : { usage: { prompt_tokens: usage, total_tokens: usage } }) });
}

// ---------------------------------------------------------------------------------------------
// CLI: node tools/mock-upstream/server.mjs [--port=8080] [--host=127.0.0.1] [--defaults=chunks=50,delay=20]
//      [--max-recorded=1000] [--api-key=KEY]. Prints "mock-upstream listening on <url>".

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

async function main() {
  const args = Object.fromEntries(
    process.argv.slice(2).map((arg) => {
      const [key, ...rest] = arg.replace(/^--/, '').split('=');
      return [key, rest.join('=')];
    }),
  );
  const mock = await startMockUpstream({
    port: Number(args.port ?? process.env.PORT ?? 0),
    host: args.host || process.env.HOST || '127.0.0.1',
    defaults: args.defaults,
    maxRecorded: args['max-recorded'] === undefined ? 1000 : Number(args['max-recorded']),
    apiKey: args['api-key'] || undefined,
  });
  process.stdout.write(`mock-upstream listening on ${mock.url}\n`);
  const stop = () => mock.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (isMain()) {
  main().catch((error) => {
    process.stderr.write(`mock-upstream: ${error.stack ?? error}\n`);
    process.exit(1);
  });
}
