// AWS Bedrock's runtime (README.md "Bedrock"): InvokeModel and InvokeModelWithResponseStream with
// Anthropic's Messages bodies, Converse and ConverseStream for other models, and the control
// plane's model list. Every call must be signed with AWS Signature Version 4 (service `bedrock`):
// the signature is computed again from the secret key, the way AWS checks it (../aws.mjs), so a
// wrong secret, a changed byte or a stale date is refused as AWS refuses it. Streams are AWS's
// binary event stream, encoded by hand there too.
import crypto from 'node:crypto';
import { anthropicMessages, chunkText, promptTokensOf, textCharsOf, usageOf } from '../server.mjs';
import { eventStreamMessage, signatureProblem } from '../aws.mjs';

export { BEDROCK_CREDENTIALS, BEDROCK_SESSION_TOKEN } from '../aws.mjs';

const RUNTIME = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/;

const event = (type, payload) =>
  eventStreamMessage({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify(payload));

/** Writes event-stream messages one by one (a chunk each, so the relay sees them split across reads). */
function writeEvents(res, messages, options) {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': crypto.randomUUID() });
  const all = Buffer.concat(messages);
  if (options.cut >= 0) return res.write(all.subarray(0, Math.floor(all.length / 2)), () => res.socket?.destroy());
  let index = 0;
  const next = () => {
    if (index >= messages.length) return res.end();
    // Split each message in two writes: a decoder must join frames across chunks.
    const message = messages[index++];
    const half = Math.floor(message.length / 2);
    res.write(message.subarray(0, half));
    res.write(message.subarray(half), () => (options.delay > 0 ? setTimeout(next, options.delay) : setImmediate(next)));
  };
  next();
}

/** InvokeModel: Anthropic's Messages answer (the mock's own Anthropic protocol), streamed as `chunk` events of base64 bytes. */
function invoke(res, model, body, options, stream, send) {
  if (body.anthropic_version !== 'bedrock-2023-05-31')
    return send.json(400, JSON.stringify({ message: 'Malformed input request: anthropic_version must be bedrock-2023-05-31' }));
  if ('model' in body || 'stream' in body)
    return send.json(400, JSON.stringify({ message: 'Malformed input request: extraneous key [model, stream] is not permitted' }));
  const contents = Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const proto = anthropicMessages(model, options, contents, promptTokensOf(textCharsOf(body)));
  if (!stream) return send.json(200, proto.body());
  const usage = usageOf(promptTokensOf(textCharsOf(body)), options);
  const sse = proto.head + contents.map((text) => proto.chunk(text)).join('') + proto.tail;
  const events = [...sse.matchAll(/^data: (.+)$/gm)].map(([, data]) => JSON.parse(data));
  // Bedrock adds its invocation metrics to the last event.
  events.at(-1)['amazon-bedrock-invocationMetrics'] = {
    inputTokenCount: usage.prompt,
    outputTokenCount: usage.completion,
    invocationLatency: 10,
    firstByteLatency: 5,
  };
  const messages = events.map((data) => event('chunk', { bytes: Buffer.from(JSON.stringify(data)).toString('base64'), p: 'abcdefgh' }));
  // `incomplete`: the stream breaks off with an exception message after its first event.
  if (options.incomplete) messages.splice(1, messages.length - 1, exception('throttlingException', 'Too many requests, please wait before trying again.'));
  writeEvents(res, messages, options);
}

function exception(type, message) {
  return eventStreamMessage({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, JSON.stringify({ message }));
}

/** Converse: the text of `chunks` x `words`, usage a test computes in advance. */
function converse(res, body, options, stream, send) {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return send.json(400, JSON.stringify({ message: 'The messages field is required' }));
  const prompt = promptTokensOf(
    body.messages.reduce((sum, message) => sum + (message.content ?? []).reduce((chars, block) => chars + (block.text?.length ?? 0), 0), 0) +
      (body.system ?? []).reduce((sum, block) => sum + (block.text?.length ?? 0), 0),
  );
  const usage = usageOf(prompt, options);
  const contents = Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
  const usageJson = { inputTokens: usage.prompt, outputTokens: usage.completion, totalTokens: usage.prompt + usage.completion };
  if (!stream) {
    return send.json(
      200,
      JSON.stringify({
        output: { message: { role: 'assistant', content: [{ text: contents.join('') }] } },
        stopReason: 'end_turn',
        ...(options.nousage ? {} : { usage: usageJson }),
        metrics: { latencyMs: 10 },
      }),
    );
  }
  const messages = [
    event('messageStart', { role: 'assistant' }),
    ...contents.map((text) => event('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('messageStop', { stopReason: 'end_turn' }),
    ...(options.nousage ? [] : [event('metadata', { usage: usageJson, metrics: { latencyMs: 10 } })]),
  ];
  writeEvents(res, messages, options);
}

export const bedrockRoutes = {
  flavor: 'bedrock',

  match(method, path) {
    if (method === 'POST') {
      const runtime = RUNTIME.exec(path);
      if (runtime) return `bedrock.${runtime[2]}`;
    }
    if (method === 'GET' && path === '/foundation-models') return 'bedrock.models';
    return undefined;
  },

  modelOf(path) {
    const runtime = RUNTIME.exec(path);
    return runtime ? decodeURIComponent(runtime[1]) : undefined;
  },

  errorBody: (status, message) => JSON.stringify({ message }),

  respond(req, res, { kind, path, baseModel, body, raw, options, query, send }) {
    const problem = signatureProblem(req, path, query, raw);
    if (problem) {
      res.setHeader('x-amzn-errortype', `${problem[0]}:http://internal.amazon.com/coral/com.amazon.coral.service/`);
      return send.json(403, JSON.stringify({ message: problem[1] }));
    }
    if (kind === 'bedrock.models') {
      return send.json(
        200,
        JSON.stringify({ modelSummaries: ['anthropic.claude-3-5-haiku-20241022-v1:0', 'meta.llama3-1-8b-instruct-v1:0'].map((modelId) => ({ modelId })) }),
      );
    }
    const stream = kind.endsWith('stream');
    if (kind.startsWith('bedrock.invoke')) return invoke(res, baseModel, body, options, stream, send);
    return converse(res, body, options, stream, send);
  },
};
