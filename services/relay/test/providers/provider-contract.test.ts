import { ChannelType } from '@aigw/contracts';
import { providers } from '../../src/providers/registry.js';
import type { AuthorizeTools, ProviderDefinition, StreamConverter, StreamOutput } from '../../src/providers/types.js';
import { channel, context, lastUsage, runStream } from './support.js';

/**
 * The contract every chat provider keeps (style rule 14, CONTRIBUTING.md), run over every registry
 * entry that is not null: it surfaces upstream error messages in any common shape (the relay
 * decides retryability from the status, so a 429 must come back as a message, not an exception), it
 * reads usage from a minimal answer and a minimal stream, and it builds a request without leaking
 * the key into the URL (a WebSocket's signed URL included).
 */

type Protocol = 'openai' | 'anthropic' | 'gemini' | 'cohere' | 'bedrock' | 'zhipu' | 'baidu' | 'tencent' | 'dify' | 'xunfei' | 'coze';
const nativeProtocols: readonly string[] = ['anthropic', 'gemini', 'cohere', 'bedrock', 'zhipu', 'baidu', 'tencent', 'dify', 'xunfei', 'coze'];
const protocolOf = (provider: ProviderDefinition): Protocol => (nativeProtocols.includes(provider.id) ? (provider.id as Protocol) : 'openai');
/** The key as each type takes it, with the secret in it (it must stay out of the URL). */
const keyFor = (type: number, secret: string) =>
  type === ChannelType.AWS
    ? `AKIAEXAMPLE|${secret}|us-east-1`
    : type === ChannelType.VertexAI
      ? JSON.stringify({ project_id: 'p', client_email: 'a@p.iam.gserviceaccount.com', private_key: secret })
      : type === ChannelType.Xunfei
        ? `mock-app-id|${secret}|mock-api-key`
        : type === ChannelType.Codex
          ? JSON.stringify({ access_token: secret, account_id: 'account-1' })
          : secret;

/** None for Spark and Coze, whose upstreams only stream (their whole answer is the stream folded). */
const minimalAnswers: Partial<Record<Protocol, unknown>> = {
  openai: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  },
  anthropic: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [{ type: 'text', text: 'Hi' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 5, output_tokens: 1 },
  },
  gemini: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 },
  },
  // Bedrock's Converse answer (model `m` is not Anthropic's).
  bedrock: {
    output: { message: { role: 'assistant', content: [{ text: 'Hi' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 5, outputTokens: 1, totalTokens: 6 },
  },
  cohere: {
    id: 'c1',
    finish_reason: 'COMPLETE',
    message: { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] },
    usage: { billed_units: { input_tokens: 5, output_tokens: 1 }, tokens: { input_tokens: 12, output_tokens: 1 } },
  },
  zhipu: {
    code: 200,
    success: true,
    data: { task_status: 'SUCCESS', choices: [{ role: 'assistant', content: '"Hi"' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } },
  },
  baidu: { id: 'as-1', result: 'Hi', usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } },
  tencent: {
    Response: {
      Choices: [{ Message: { Role: 'assistant', Content: 'Hi' }, FinishReason: 'stop' }],
      Usage: { PromptTokens: 5, CompletionTokens: 1, TotalTokens: 6 },
    },
  },
  dify: { event: 'message', message_id: 'm1', mode: 'chat', answer: 'Hi', metadata: { usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } } },
};

const minimalStreams: Record<Protocol, string> = {
  openai:
    [
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}',
      'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}',
      'data: [DONE]',
    ].join('\n\n') + '\n\n',
  anthropic:
    [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":5,"output_tokens":1}}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}',
      'event: message_stop\ndata: {"type":"message_stop"}',
    ].join('\n\n') + '\n\n',
  gemini:
    'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}\r\n\r\n',
  // ConverseStream's events, as the event-stream framing names them (SSE here for the test's runner).
  bedrock:
    [
      'event: messageStart\ndata: {"role":"assistant"}',
      'event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"Hi"}}',
      'event: messageStop\ndata: {"stopReason":"end_turn"}',
      'event: metadata\ndata: {"usage":{"inputTokens":5,"outputTokens":1,"totalTokens":6}}',
    ].join('\n\n') + '\n\n',
  cohere:
    [
      'event: message-start\ndata: {"id":"c1","type":"message-start","delta":{"message":{"role":"assistant","content":[]}}}',
      'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi"}}}}',
      'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":5,"output_tokens":1}}}}',
    ].join('\n\n') + '\n\n',
  // Zhipu v3's data is text and its usage a `meta` field: its own framing reads them (runProviderStream).
  zhipu:
    'event: add\ndata: Hi\n\nevent: finish\ndata: \nmeta: {"task_status":"SUCCESS","usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}\n\n',
  baidu: 'data: {"result":"Hi","is_end":false}\n\ndata: {"result":"","is_end":true,"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}\n\n',
  tencent:
    'data: {"Choices":[{"Delta":{"Content":"Hi"},"FinishReason":""}]}\n\ndata: {"Choices":[{"Delta":{"Content":""},"FinishReason":"stop"}],"Usage":{"PromptTokens":5,"CompletionTokens":1,"TotalTokens":6}}\n\n',
  dify: 'data: {"event":"message","message_id":"m1","answer":"Hi"}\n\ndata: {"event":"message_end","message_id":"m1","metadata":{"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}}\n\n',
  // Spark's socket messages, one event each as the relay passes them on (upstream-socket.ts).
  xunfei:
    'data: {"header":{"code":0,"message":"Success","sid":"s1","status":0},"payload":{"choices":{"status":0,"seq":0,"text":[{"content":"Hi","role":"assistant","index":0}]}}}\n\n' +
    'data: {"header":{"code":0,"message":"Success","sid":"s1","status":2},"payload":{"choices":{"status":2,"seq":1,"text":[{"content":"","role":"assistant","index":0}]},"usage":{"text":{"question_tokens":5,"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}}}\n\n',
  // Coze's named events; the framing (SseOrBodyFramer) reads them as SSE.
  coze:
    'event:conversation.message.delta\ndata:{"id":"m1","role":"assistant","type":"answer","content":"Hi","content_type":"text"}\n\n' +
    'event:conversation.chat.completed\ndata:{"id":"c1","status":"completed","usage":{"token_count":6,"output_count":1,"input_count":5}}\n\n' +
    'event:done\ndata:"[DONE]"\n\n',
};

/**
 * Zhipu, Baidu, Tencent and Coze streams go through their providers' own framing, as the relay sends them (Zhipu v3's usage is an SSE
 * field plain parsers drop); Bedrock's binary framing is stood in for by SSE above.
 */
const framedStreams: readonly Protocol[] = ['zhipu', 'baidu', 'tencent', 'coze'];

function runProviderStream(provider: ProviderDefinition, converter: StreamConverter, text: string, chunkSize: number): StreamOutput[] {
  const framer = framedStreams.includes(protocolOf(provider)) ? provider.framing?.() : undefined;
  return runStream(converter, text, chunkSize, framer);
}

const errorBodies: Array<[string, string]> = [
  ['OpenAI', '{"error":{"message":"Rate limit reached, slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}'],
  ['Anthropic', '{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached, slow down"}}'],
  ['Gemini', '{"error":{"code":429,"message":"Rate limit reached, slow down","status":"RESOURCE_EXHAUSTED"}}'],
  ['a proxy', '{"message":"Rate limit reached, slow down"}'],
  ['plain text', 'Rate limit reached, slow down'],
];

/** Tools for `authorize`: no provider signing a socket exchanges tokens. */
const noTokens: AuthorizeTools = { accessToken: () => Promise.reject(new Error('no token exchange in the contract')) };

const entries = Object.entries(providers)
  .filter((entry): entry is [string, ProviderDefinition] => entry[1] !== null)
  .map(([type, provider]) => [`${provider.id} (type ${type})`, Number(type), provider] as const);

describe.each(entries)('provider contract: %s', (_name, type, provider) => {
  const protocol = protocolOf(provider);
  // Types without a default base URL (Azure, Custom, Xinference) are given one, as channels must;
  // Cloudflare its account id, Vertex AI its region.
  const ctx = context({
    channel: channel({
      type,
      other: type === ChannelType.Cloudflare ? '023e105f4ecef8ad9ca31a8372d0c353' : type === ChannelType.VertexAI ? 'us-central1' : '',
      base_url:
        type === ChannelType.Custom
          ? 'https://llm.example.com/chat'
          : type === ChannelType.Azure || type === ChannelType.Xinference
            ? 'https://llm.example.com'
            : '',
    }),
  });

  it.each(errorBodies)('surfaces the upstream message of a 429 in the %s shape', (_shape, body) => {
    const error = provider.error(429, body);
    expect(error.message).toBe('Rate limit reached, slow down');
    expect(typeof error.type).toBe('string');
    expect(typeof error.code).toBe('string');
  });

  it('cuts plain-text error bodies to 1,000 characters and names the status of an empty one', () => {
    expect(provider.error(502, `<html>${'x'.repeat(5000)}</html>`).message.length).toBeLessThanOrEqual(1001);
    expect(provider.error(503, '').message).toContain('503');
  });

  // Providers without chat (Jina) have no chat cases, and are held to the same request rules through their passthrough.
  const chat = provider.chat;
  if (chat) {
    // Upstreams that only stream (Spark, Coze) have no whole answer of their own: the stream case covers them.
    if (chat.response) {
      it('reads usage from a minimal answer', () => {
        expect(chat.response!(minimalAnswers[protocol], ctx).usage).toEqual({ prompt_tokens: 5, completion_tokens: 1, cached_tokens: 0 });
      });
    }

    it('reads usage and text from a minimal stream', () => {
      const outputs = runProviderStream(provider, chat.stream({ ...ctx, stream: true }), minimalStreams[protocol], 5);
      expect(lastUsage(outputs)).toEqual({ prompt_tokens: 5, completion_tokens: 1, cached_tokens: 0 });
      expect(outputs.map((output) => output.text ?? '').join('')).toBe('Hi');
    });
  }

  it('builds a JSON POST (or a WebSocket with one JSON message) that keeps the key out of the URL', async () => {
    const key = keyFor(type, 'secret-key-123');
    // Codex serves streamed Responses only: its probe streams.
    const streams = provider.operations[0] === 'responses';
    const request = chat
      ? chat.request({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, { ...ctx, key })
      : provider.passthrough!.request(
          `/v1/${provider.operations[0]}`,
          { model: 'm', input: 'Hi', ...(streams ? { stream: true } : {}) },
          { ...ctx, key, stream: streams },
        );
    if (request.websocket) {
      // A socket opens with a GET; a signing provider (Spark) puts its signature in the URL when the
      // call is sent, so the URL is checked as signed, its parameters decoded too (Spark's
      // authorization is the base64 of its APIKey and signature): never the secret.
      const signed = provider.authorize ? await provider.authorize(request, { channel: ctx.channel, key }, noTokens) : request;
      if (provider.authorize) expect(signed.url).not.toBe(request.url);
      expect(signed.method).toBe('GET');
      expect(signed.url).toMatch(/^wss?:\/\//);
      const parameters = [...new URL(signed.url).searchParams.values()];
      const decoded = parameters.map((value) => Buffer.from(value, 'base64').toString('utf8'));
      expect([signed.url, ...parameters, ...decoded, JSON.stringify(signed.headers)].join('\n')).not.toContain('secret-key-123');
      expect(() => JSON.parse(signed.body!)).not.toThrow();
      return;
    }
    expect(request.method).toBe('POST');
    expect(request.url).toMatch(/^https?:\/\//);
    expect(request.url).not.toContain('secret-key-123');
    expect(() => JSON.parse(request.body!)).not.toThrow();
  });
});
