// OpenAI's Realtime API (a WebSocket), deterministic (README.md, "Realtime"):
//   GET /v1/realtime?model=<model>                                  OpenAI (key: Authorization: Bearer)
//   GET /openai/realtime?api-version=...&deployment=<deployment>    Azure (key: api-key)
// The server hands the upgrade here (server.mjs, `upgrade`); options come from the defaults and
// the model (or deployment) suffix: mock-realtime@chunks=3,delay=50.
import { STATUS_CODES } from 'node:http';
import { WebSocketServer } from 'ws';
import { chunkText, parseMockOptions, promptTokensOf, splitModel } from '../server.mjs';

/** Bytes of input audio per token: 100 ms of 24 kHz 16-bit mono PCM (OpenAI's pcm16). */
export const AUDIO_BYTES_PER_TOKEN = 4800;
/** Output audio tokens per word of the transcript. */
export const AUDIO_TOKENS_PER_WORD = 4;
/** Bytes of fake audio per word in `response.audio.delta`. */
const AUDIO_BYTES_PER_WORD = 16;

// No client tracking: the server that handed a socket over drops it on close().
const wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
let sequence = 0;
const nextId = (prefix) => `${prefix}_mock${++sequence}`;

/** A refusal before the upgrade: an HTTP answer in OpenAI's error shape, then the socket closes. */
function refuse(socket, status, message) {
  const body = JSON.stringify({
    error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: status === 401 ? 'invalid_api_key' : null },
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Characters of the text parts of a conversation item (`input_text`, `text`). */
function itemChars(item) {
  let chars = 0;
  for (const part of Array.isArray(item?.content) ? item.content : []) if (typeof part?.text === 'string') chars += part.text.length;
  return chars;
}

/**
 * A response's usage, as OpenAI's `response.done` reports it: input text = ceil(characters the
 * client put into the conversation since the last response / 4), input audio = ceil(bytes of
 * audio appended since then / 4800), `cacheread` of the input cached (text first); output text
 * = words sent, output audio = 4 per word when the response has audio. `negusage` negates.
 */
export function realtimeUsage({ textChars, audioBytes, words, audio, cacheread = 0, negate = false }) {
  const inputText = promptTokensOf(textChars);
  const inputAudio = Math.ceil(audioBytes / AUDIO_BYTES_PER_TOKEN);
  const outputText = words;
  const outputAudio = audio ? words * AUDIO_TOKENS_PER_WORD : 0;
  const cached = Math.min(cacheread, inputText + inputAudio);
  const cachedText = Math.min(cached, inputText);
  const sign = negate ? -1 : 1;
  const n = (value) => sign * value;
  return {
    total_tokens: n(inputText + inputAudio + outputText + outputAudio),
    input_tokens: n(inputText + inputAudio),
    output_tokens: n(outputText + outputAudio),
    input_token_details: {
      text_tokens: n(inputText),
      audio_tokens: n(inputAudio),
      cached_tokens: n(cached),
      cached_tokens_details: { text_tokens: n(cachedText), audio_tokens: n(cached - cachedText) },
    },
    output_token_details: { text_tokens: n(outputText), audio_tokens: n(outputAudio) },
  };
}

/** One session: `session.created`, then the answers to the client's events. */
function serve(ws, req, path, model, options, record) {
  // What each client message is recorded as (method `WS`), beside the upgrade request.
  const message = { method: 'WS', url: req.url, headers: req.headers };
  let sent = 0;
  let dropped = false;
  let textChars = 0;
  let audioBytes = 0;
  /** The response being generated: its id, timer and words sent so far. */
  let active = null;
  const session = {
    id: nextId('sess'),
    object: 'realtime.session',
    model,
    modalities: ['text', 'audio'],
    instructions: '',
    voice: 'alloy',
    input_audio_format: 'pcm16',
    output_audio_format: 'pcm16',
    turn_detection: null,
    ...(options.echoHeaders ? { headers: req.headers } : {}),
  };

  /** Sends raw data as one event; with `cut=K` the socket is dropped after the K-th. */
  const sendRaw = (data, binary = false) => {
    if (dropped || ws.readyState !== ws.OPEN) return;
    sent++;
    const cut = options.cut >= 0 && sent >= options.cut;
    if (cut) dropped = true;
    ws.send(data, { binary }, () => cut && ws.terminate());
  };
  const send = (event) => sendRaw(JSON.stringify({ event_id: nextId('event'), ...event }));
  const error = (code, text) =>
    send({ type: 'error', error: { type: 'invalid_request_error', code, message: `mock upstream: ${text}`, param: null, event_id: null } });

  /** Ends the active response with `response.done` and its usage (what was sent, for a cancelled one). */
  function finish(status) {
    const { id, words, audio, timer, input } = active;
    clearTimeout(timer);
    active = null;
    const transcript = Array.from({ length: words / options.words }, (_, index) => chunkText(index, options.words)).join('');
    const usage = realtimeUsage({ ...input, words, audio, cacheread: options.cacheread, negate: options.negusage });
    send({
      type: 'response.done',
      response: {
        id,
        object: 'realtime.response',
        status,
        output: [
          {
            id: `${id}_item`,
            object: 'realtime.item',
            type: 'message',
            role: 'assistant',
            content: [audio ? { type: 'audio', transcript } : { type: 'text', text: transcript }],
          },
        ],
        ...(options.nousage ? {} : { usage }),
      },
    });
  }

  /** `response.created`, `chunks` deltas (`delay` ms apart), `response.done`. */
  function respond(event) {
    if (active) return error('conversation_already_has_active_response', 'a response is in progress');
    const modalities = event.response?.modalities ?? event.response?.output_modalities ?? session.modalities;
    const audio = Array.isArray(modalities) && modalities.includes('audio');
    const id = nextId('resp');
    active = { id, words: 0, audio, timer: undefined, input: { textChars, audioBytes } };
    textChars = 0;
    audioBytes = 0;
    send({ type: 'response.created', response: { id, object: 'realtime.response', status: 'in_progress', output: [] } });
    let chunk = 0;
    const step = () => {
      while (active?.id === id) {
        if (chunk === options.chunks) return finish('completed');
        const text = chunkText(chunk++, options.words);
        active.words += options.words;
        const at = { response_id: id, item_id: `${id}_item`, output_index: 0, content_index: 0 };
        if (audio) {
          send({ type: 'response.audio.delta', ...at, delta: Buffer.alloc(options.words * AUDIO_BYTES_PER_WORD, chunk).toString('base64') });
          send({ type: 'response.audio_transcript.delta', ...at, delta: text });
        } else {
          send({ type: 'response.text.delta', ...at, delta: text });
        }
        if (options.delay > 0) {
          active.timer = setTimeout(step, options.delay);
          return;
        }
      }
    };
    step();
  }

  ws.on('close', () => active && clearTimeout(active.timer));
  ws.on('message', (data, isBinary) => {
    record(message, path, isBinary ? data : undefined, isBinary ? '' : data.toString(), options);
    if (options.hang) return;
    // Binary frames come back as they went (the relay must pass them both ways).
    if (isBinary) return sendRaw(data, true);
    let event;
    try {
      event = JSON.parse(data.toString());
    } catch {
      return error('invalid_json', 'the event is not JSON');
    }
    switch (event?.type) {
      case 'session.update':
        Object.assign(session, event.session);
        return send({ type: 'session.updated', session });
      case 'input_audio_buffer.append':
        audioBytes += Buffer.from(String(event.audio ?? ''), 'base64').length;
        return;
      case 'input_audio_buffer.commit':
        return send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: nextId('item') });
      case 'input_audio_buffer.clear':
        audioBytes = 0;
        return send({ type: 'input_audio_buffer.cleared' });
      case 'conversation.item.create':
        textChars += itemChars(event.item);
        return send({ type: 'conversation.item.created', previous_item_id: null, item: { id: nextId('item'), ...event.item } });
      case 'response.create':
        return respond(event);
      case 'response.cancel':
        return active ? finish('cancelled') : error('response_cancel_not_active', 'no response is in progress');
      default:
        return error('invalid_event', `unknown event type ${JSON.stringify(event?.type)}`);
    }
  });
  if (!options.hang) send({ type: 'session.created', session });
}

export const realtimeRoutes = {
  // No HTTP route: a plain GET of these paths is the server's 404.
  match: () => undefined,
  /** Takes the upgrades of the realtime paths (true), refusing before the handshake as OpenAI does (401, 400, `status=N`). */
  upgrade(req, socket, head, { apiKey, defaults, record }) {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    if (path !== '/v1/realtime' && path !== '/openai/realtime') return false;
    const query = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
    const [model, suffix] = splitModel(query.get('model') ?? query.get('deployment') ?? '');
    let options;
    try {
      options = parseMockOptions(suffix, { ...defaults });
    } catch (error) {
      refuse(socket, 400, error.message);
      return true;
    }
    record(req, path, undefined, '', options);
    const bearer = req.headers.authorization;
    if (apiKey && bearer !== `Bearer ${apiKey}` && req.headers['api-key'] !== apiKey) refuse(socket, 401, 'mock upstream: invalid api key');
    else if (!model) refuse(socket, 400, 'mock upstream: the model (or deployment) query parameter is required');
    else if (options.status) refuse(socket, options.status, `mock upstream: status ${options.status} as asked`);
    else {
      const accept = () => !socket.destroyed && wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, path, model, options, record));
      if (options.latency > 0) setTimeout(accept, options.latency);
      else accept();
    }
    return true;
  },
};
