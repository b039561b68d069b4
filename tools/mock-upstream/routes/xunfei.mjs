// iFlytek Spark's chat WebSocket (README.md "iFlytek Spark"): `GET /{version}/chat` (and the
// long-context `/chat/pro-128k`, `/chat/max-32k`) upgraded only once the URL's signature checks
// out as iFlytek's gateway checks it (HMAC-SHA256 of host, date and request line with the
// APISecret of the APIKey it names, the date within five minutes), refused before the upgrade
// with its HTTP answers otherwise. Then one message in (the app_id of that key, the domain of the
// path, the conversation), the answer out in several messages (status 0, 1..., 2 with the usage),
// and the mock closes the socket, as Spark does.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { WebSocketServer } from 'ws';
import { chunkText, parseMockOptions, promptTokensOf, usageOf } from '../server.mjs';

/** The apps the mock knows, APIKey -> its APPID and APISecret (a Spark channel key is `<APPID>|<APISecret>|<APIKey>`). Process-wide: a test may add its own. */
export const sparkApps = new Map([['mock-spark-api-key', { appId: 'mock-spark-app', apiSecret: 'mock-spark-api-secret' }]]);
/** How far the signed date may be from the mock's clock, as iFlytek allows. */
export const SPARK_CLOCK_SKEW_S = 300;

/** The endpoints and the domains each takes (v1.1 also under Spark Lite's old name). */
const ENDPOINTS = new Map([
  ['/v1.1/chat', { domains: ['lite', 'general'], functions: false }],
  ['/v2.1/chat', { domains: ['generalv2'], functions: false }],
  ['/v3.1/chat', { domains: ['generalv3'], functions: true }],
  ['/chat/pro-128k', { domains: ['pro-128k'], functions: true }],
  ['/v3.5/chat', { domains: ['generalv3.5'], functions: true }],
  ['/chat/max-32k', { domains: ['max-32k'], functions: true }],
  ['/v4.0/chat', { domains: ['4.0Ultra'], functions: true }],
]);

/** The wording of the errors a test can ask for (`spark-code=N`), in Spark's style; others get a generic one. */
const CODE_MESSAGES = {
  10005: 'InvalidParamError:(10005)invalid parameter value',
  10007: 'UserCongestionError:(10007)the previous question is still being answered',
  10013: 'InputIllegalError:(10013)the input failed content moderation',
  10014: 'OutputIllegalError:(10014)the answer failed content moderation',
  11200: 'AppIdNoAuthError:(11200)auth no license',
  11202: 'AppIdQpsOverFlowError:(11202)the per-second limit of the app is exceeded',
};

const ROLES = new Set(['system', 'user', 'assistant']);

// No client tracking: the server that handed a socket over drops it on close().
const wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false });
let sequence = 0;
const nextSid = () => `cht000b${String(++sequence).padStart(4, '0')}@dx-mock`;

/** A refusal before the upgrade, as iFlytek's gateway answers: HTTP with `{"message"}`, then the socket closes. */
function refuse(socket, status, message) {
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The fields of the `authorization` parameter (base64 of `api_key="...", algorithm="...", headers="...", signature="..."`), or null. */
function authorizationFields(parameter) {
  const text = Buffer.from(parameter, 'base64').toString('utf8');
  const fields = {};
  for (const [, name, value] of text.matchAll(/(\w+)="([^"]*)"/g)) fields[name] = value;
  const apiKey = fields.api_key ?? fields.username;
  return apiKey && fields.algorithm && fields.headers && fields.signature ? { apiKey, ...fields } : null;
}

/** [status, message] of iFlytek's refusal of this handshake, or null when the signed URL is good. */
export function handshakeRefusal(req, path, query, nowMs) {
  const [parameter, date, host] = ['authorization', 'date', 'host'].map((name) => query.get(name));
  if (!parameter || !date || !host) return [401, 'Unauthorized'];
  const fields = authorizationFields(parameter);
  const app = fields && sparkApps.get(fields.apiKey);
  if (!app || fields.algorithm !== 'hmac-sha256' || fields.headers !== 'host date request-line') return [401, 'HMAC signature cannot be verified'];
  const signedAt = Date.parse(date);
  if (!Number.isFinite(signedAt) || Math.abs(nowMs - signedAt) > SPARK_CLOCK_SKEW_S * 1000) {
    return [403, 'HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication'];
  }
  // The signed host must be the one the client reached (the Host header), and the signature its.
  const expected = createHmac('sha256', app.apiSecret).update(`host: ${host}\ndate: ${date}\nGET ${path} HTTP/1.1`, 'utf8').digest();
  const given = Buffer.from(fields.signature, 'base64');
  if (host !== req.headers.host || given.length !== expected.length || !timingSafeEqual(given, expected)) return [401, 'HMAC signature does not match'];
  return null;
}

/**
 * The options of a message: the server defaults, then its `mock` field (a channel's param_override
 * adds one; Spark's message names no model to carry a suffix). `spark-code=N` (Spark's error code
 * N, sent after `spark-code-after=K` answer messages, default 0) is this route's own; the rest are
 * the mock's usual options. Throws on a bad one, as the other routes answer 400.
 */
function messageOptions(spec, defaults) {
  const own = { code: 0, after: 0 };
  const entries = typeof spec === 'string' ? spec.split(/[,;]/).filter(Boolean) : Object.entries(spec ?? {}).map(([key, value]) => `${key}=${value}`);
  const rest = [];
  for (const entry of entries) {
    const [key, value = ''] = entry.split('=').map((part) => part.trim());
    if (key !== 'spark-code' && key !== 'spark-code-after') {
      rest.push(entry);
      continue;
    }
    const n = Number(value);
    if (!Number.isInteger(n) || n < (key === 'spark-code' ? 1 : 0) || n > 100_000) throw new Error(`mock option ${key} must be an integer`);
    own[key === 'spark-code' ? 'code' : 'after'] = n;
  }
  return { ...parseMockOptions(rest.join(','), { ...defaults }), spark: own };
}

/** Why Spark would refuse this message (code and message), or null. */
function messageProblem(body, app, endpoint) {
  if (body?.header?.app_id !== app.appId) return [11200, CODE_MESSAGES[11200]];
  if (!endpoint.domains.includes(body?.parameter?.chat?.domain))
    return [10005, `InvalidParamError:(10005)domain must be one of ${endpoint.domains.join(', ')} here`];
  const texts = body?.payload?.message?.text;
  const valid =
    Array.isArray(texts) &&
    texts.length > 0 &&
    texts.every((text) => ROLES.has(text?.role) && typeof text.content === 'string') &&
    texts.at(-1).role === 'user' &&
    texts.slice(1).every((text) => text.role !== 'system');
  if (!valid) return [10005, 'InvalidParamError:(10005)payload.message.text: an optional system text first, then turns ending with the user'];
  const functions = body.payload.functions;
  if (functions !== undefined && (!endpoint.functions || !Array.isArray(functions.text) || !functions.text.every((fn) => typeof fn?.name === 'string'))) {
    return [10005, 'InvalidParamError:(10005)payload.functions is not valid for this version'];
  }
  return null;
}

/** One session: the message in, the answer out, then the mock closes the socket. */
function serve(ws, req, path, app, endpoint, defaults, record) {
  let sent = 0;
  let timer;
  ws.on('close', (code) => {
    clearTimeout(timer);
    // What a test reads to see the socket end, and when (frames: the answer messages sent before).
    record({ method: 'WS-CLOSE', url: req.url, headers: req.headers }, path, { code, frames: sent }, '', defaults);
  });
  ws.once('message', (data, isBinary) => {
    const text = isBinary ? '' : data.toString();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    let options;
    try {
      options = messageOptions(body?.mock, defaults);
    } catch (error) {
      record({ method: 'WS', url: req.url, headers: req.headers }, path, body, text, defaults);
      return finishWith(10005, `mock upstream: ${error.message}`);
    }
    record({ method: 'WS', url: req.url, headers: req.headers }, path, body, text, options);
    if (options.hang) return;
    const problem = body === undefined ? [10003, 'InvalidMessageError:(10003)the message is not JSON'] : messageProblem(body, app, endpoint);
    if (problem) return finishWith(...problem);
    answer(body, options);
  });

  const sid = nextSid();
  const frame = (header, payload) => JSON.stringify(payload ? { header: { sid, ...header }, payload } : { header: { sid, ...header } });
  function finishWith(code, message) {
    ws.send(frame({ code, message: message ?? CODE_MESSAGES[code] ?? `mock upstream: error ${code} as asked`, status: 2 }));
    ws.close(1000);
  }

  /** `chunks` messages (`delay` ms apart): status 0 first, 1 between, 2 the last, which carries the usage; then the close. */
  function answer(body, options) {
    const texts = body.payload.message.text;
    const prompt = promptTokensOf(texts.reduce((sum, item) => sum + item.content.length, 0));
    const usage = usageOf(prompt, options);
    const question = promptTokensOf(texts.at(-1).content.length);
    const total = Math.max(options.chunks, 1);
    const step = () => {
      if (ws.readyState !== ws.OPEN) return;
      if (options.spark.code && sent === options.spark.after) return finishWith(options.spark.code);
      const index = sent;
      const last = index === total - 1;
      const status = last ? 2 : index === 0 ? 0 : 1;
      const content = index < options.chunks ? chunkText(index, options.words) : '';
      const payload = { choices: { status, seq: index, text: [{ content, role: 'assistant', index: 0 }] } };
      if (last && !options.nousage) {
        payload.usage = {
          text: { question_tokens: question, prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
        };
      }
      sent++;
      ws.send(frame({ code: 0, message: 'Success', status }, payload));
      if (options.cut >= 0 && sent >= options.cut) return ws.terminate();
      if (last) return ws.close(1000);
      if (options.delay > 0) timer = setTimeout(step, options.delay);
      else step();
    };
    step();
  }
}

export const sparkRoutes = {
  // No HTTP route: a plain GET of these paths is the server's 404.
  match: () => undefined,
  /** Takes the upgrades of Spark's endpoints (true), refusing before the handshake as iFlytek does (401, 403, `status=N` of the defaults). */
  upgrade(req, socket, head, { defaults, record }) {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const endpoint = ENDPOINTS.get(path);
    if (!endpoint) return false;
    const query = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
    record(req, path, undefined, '', defaults);
    const refused = handshakeRefusal(req, path, query, Date.now());
    if (refused) refuse(socket, ...refused);
    else if (defaults.status) refuse(socket, defaults.status, `mock upstream: status ${defaults.status} as asked`);
    else {
      const app = sparkApps.get(authorizationFields(query.get('authorization')).apiKey);
      const accept = () => !socket.destroyed && wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, path, app, endpoint, defaults, record));
      if (defaults.latency > 0) setTimeout(accept, defaults.latency);
      else accept();
    }
    return true;
  },
};
