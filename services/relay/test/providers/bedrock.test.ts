import { createHash } from 'node:crypto';
import { bedrockProvider } from '../../src/providers/bedrock/index';
import { bedrockCredentials, isAnthropicModel } from '../../src/providers/bedrock/api';
import { EventStreamFramer } from '../../src/providers/bedrock/event-stream';
import { signBedrock } from '../../src/providers/bedrock/sign';
import { ChannelConfigurationError } from '../../src/providers/shared/url';
import { BEDROCK_CREDENTIALS, BEDROCK_SESSION_TOKEN, eventStreamMessage, signatureProblem } from '../../../../tools/mock-upstream/aws.mjs';
import { channel, context, lastUsage, runStream } from './support';

const SECRET = BEDROCK_CREDENTIALS.AKIAIOSFODNN7EXAMPLE;
const KEY = `AKIAIOSFODNN7EXAMPLE|${SECRET}|us-east-1`;
const CLAUDE = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
const bedrock = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: KEY, upstreamModel: CLAUDE, requestedModel: CLAUDE, channel: channel({ type: 33 }), ...overrides });

describe('bedrock credentials', () => {
  it('reads AK|SK|region and an optional session token; the region may come from the channel', () => {
    expect(bedrockCredentials(channel({ type: 33 }), KEY)).toEqual({ accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: SECRET, region: 'us-east-1' });
    expect(bedrockCredentials(channel({ type: 33 }), `AK|SK|eu-west-3|token/1`)).toEqual({
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
      region: 'eu-west-3',
      sessionToken: 'token/1',
    });
    expect(bedrockCredentials(channel({ type: 33, other: 'ap-south-1' }), 'AK|SK')).toMatchObject({ region: 'ap-south-1' });
  });

  it('names what is missing, as a channel configuration error', () => {
    expect(() => bedrockCredentials(channel({ type: 33, id: 7 }), 'just-a-key')).toThrow(ChannelConfigurationError);
    expect(() => bedrockCredentials(channel({ type: 33, id: 7 }), 'just-a-key')).toThrow(
      'channel 7 (AWS Bedrock) needs its key as "access key|secret key|region"',
    );
    expect(() => bedrockCredentials(channel({ type: 33, id: 7 }), 'AK|SK')).toThrow(/no valid region/);
    expect(() => bedrockCredentials(channel({ type: 33, id: 7 }), 'AK|SK|not a region')).toThrow(/no valid region/);
  });

  it("knows Anthropic's models, foundation ids and inference profiles alike", () => {
    for (const model of [CLAUDE, 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-v2']) {
      expect(isAnthropicModel(model)).toBe(true);
    }
    for (const model of ['meta.llama3-1-8b-instruct-v1:0', 'amazon.nova-pro-v1:0', 'mistral.mistral-large-2407-v1:0'])
      expect(isAnthropicModel(model)).toBe(false);
  });
});

describe('bedrock requests', () => {
  const body = { model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };

  it("sends Claude to InvokeModel with a Messages body (Bedrock's version, no model, no stream flag), at the region's host", () => {
    const request = bedrockProvider.chat.request(body, bedrock());
    expect(request.url).toBe(`https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(CLAUDE)}/invoke`);
    expect(request.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    const sent = JSON.parse(request.body!);
    expect(sent).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100 });
    expect(sent).not.toHaveProperty('model');
    expect(sent).not.toHaveProperty('stream');
    const streamed = bedrockProvider.chat.request({ ...body, stream: true }, bedrock({ stream: true }));
    expect(streamed.url).toMatch(/\/invoke-with-response-stream$/);
    expect(streamed.headers.accept).toBe('application/vnd.amazon.eventstream');
  });

  it("sends other models to Converse, and honours the channel's base_url", () => {
    const llama = 'meta.llama3-1-8b-instruct-v1:0';
    const request = bedrockProvider.chat.request(
      {
        model: llama,
        max_tokens: 50,
        temperature: 0.2,
        stop: 'END',
        messages: [
          { role: 'system', content: 'short answers' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
        ],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
        logprobs: true,
      },
      bedrock({ upstreamModel: llama, channel: channel({ type: 33, base_url: 'https://vpce-1.bedrock-runtime.example/' }) }),
    );
    expect(request.url).toBe(`https://vpce-1.bedrock-runtime.example/model/${encodeURIComponent(llama)}/converse`);
    expect(JSON.parse(request.body!)).toEqual({
      messages: [{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: 'AAAA' } } }] }],
      system: [{ text: 'short answers' }],
      inferenceConfig: { maxTokens: 50, temperature: 0.2, stopSequences: ['END'] },
      toolConfig: { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }], toolChoice: { auto: {} } },
    });
    expect(request.warnings).toEqual(['parameter "logprobs" is not supported by Bedrock\'s Converse API and was dropped']);
  });

  it("passes an Anthropic client's body natively, its beta features in the body, for Anthropic's models only", () => {
    const native = { model: CLAUDE, max_tokens: 10, stream: true, system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }], messages: [] };
    const request = bedrockProvider.messages!.request(native, bedrock({ stream: true, forwarded: { 'anthropic-beta': 'a-1, b-2' } }));
    expect(JSON.parse(request.body!)).toEqual({
      max_tokens: 10,
      system: native.system,
      messages: [],
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['a-1', 'b-2'],
    });
    expect(bedrockProvider.messages!.serves!(bedrock())).toBe(true);
    expect(bedrockProvider.messages!.serves!(bedrock({ upstreamModel: 'amazon.nova-pro-v1:0' }))).toBe(false);
  });
});

describe('bedrock signing', () => {
  const ctx = bedrock();
  const request = bedrockProvider.chat.request({ model: CLAUDE, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }, ctx);
  const at = new Date('2026-11-26T08:00:00Z');

  it('signs with SigV4 as AWS verifies it: date, payload hash, signed headers, signature', async () => {
    const signed = await signBedrock(request, ctx, at);
    expect(signed.headers['x-amz-date']).toBe('20261126T080000Z');
    expect(signed.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(request.body!).digest('hex'));
    expect(signed.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/20261126\/us-east-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(signed.headers).not.toHaveProperty('host');
    const url = new URL(signed.url);
    const verify = (headers: Record<string, string>, raw = signed.body) =>
      signatureProblem({ method: 'POST', headers: { ...headers, host: url.host } }, url.pathname, url.searchParams, raw, at.getTime());
    expect(verify(signed.headers)).toBeNull();
    // One changed byte of the body, a changed signed header, another secret: refused as AWS refuses them.
    expect(verify(signed.headers, signed.body!.replace('Hi', 'Ho'))).toEqual(['InvalidSignatureException', expect.stringContaining('x-amz-content-sha256')]);
    expect(verify({ ...signed.headers, accept: 'text/plain' })).toEqual(['InvalidSignatureException', expect.stringContaining('signature we calculated')]);
    const other = await signBedrock(request, bedrock({ key: 'AKIAIOSFODNN7EXAMPLE|another-secret|us-east-1' }), at);
    expect(verify(other.headers)).toEqual(['InvalidSignatureException', expect.stringContaining('signature we calculated')]);
    // Five minutes of clock skew at most.
    expect(
      signatureProblem(
        { method: 'POST', headers: { ...signed.headers, host: url.host } },
        url.pathname,
        url.searchParams,
        signed.body,
        at.getTime() + 6 * 60_000,
      ),
    ).toEqual(['InvalidSignatureException', expect.stringContaining('expired')]);
  });

  it('carries a session token for temporary credentials', async () => {
    const temporary = bedrock({ key: `ASIAMOCKTEMPORARY001|${BEDROCK_CREDENTIALS.ASIAMOCKTEMPORARY001}|us-east-1|${BEDROCK_SESSION_TOKEN}` });
    const signed = await signBedrock(request, temporary, at);
    expect(signed.headers['x-amz-security-token']).toBe(BEDROCK_SESSION_TOKEN);
    expect(signed.headers.authorization).toContain('x-amz-security-token');
    const url = new URL(signed.url);
    expect(
      signatureProblem({ method: 'POST', headers: { ...signed.headers, host: url.host } }, url.pathname, url.searchParams, signed.body, at.getTime()),
    ).toBeNull();
  });
});

describe('bedrock event stream', () => {
  const chunk = (event: Record<string, unknown>) =>
    eventStreamMessage(
      { ':event-type': 'chunk', ':message-type': 'event', ':content-type': 'application/json' },
      JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') }),
    );
  const anthropicEvents = [
    { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
    { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 5, outputTokenCount: 1 } },
  ];
  const bytes = Buffer.concat(anthropicEvents.map(chunk));

  it('unwraps InvokeModel chunks into the model events, however the bytes are split', () => {
    for (const size of [1, 7, 64, bytes.length]) {
      const framer = new EventStreamFramer();
      const events = [];
      for (let offset = 0; offset < bytes.length; offset += size) events.push(...framer.push(bytes.subarray(offset, offset + size)));
      events.push(...framer.end());
      expect(events.map((event) => event.event)).toEqual(['message_start', 'content_block_delta', 'message_delta', 'message_stop']);
      expect(JSON.parse(events[1]!.data)).toEqual(anthropicEvents[1]);
    }
  });

  it("feeds Anthropic's converter: text and usage as from Anthropic's own stream", () => {
    const framer = new EventStreamFramer();
    const converter = bedrockProvider.chat.stream(bedrock({ stream: true }));
    const outputs = framer.push(bytes).flatMap((event) => converter.onEvent(event));
    expect(outputs.map((output) => output.text ?? '').join('')).toBe('Hi');
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 5, completion_tokens: 1, cached_tokens: 0 });
  });

  it('names Converse events by their type, and turns exceptions and broken frames into error events', () => {
    const framer = new EventStreamFramer();
    const converse = eventStreamMessage({ ':event-type': 'contentBlockDelta', ':message-type': 'event' }, '{"contentBlockIndex":0,"delta":{"text":"Hi"}}');
    const exception = eventStreamMessage({ ':exception-type': 'throttlingException', ':message-type': 'exception' }, '{"message":"Too many requests"}');
    expect(framer.push(Buffer.concat([converse, exception]))).toEqual([
      { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hi"}}' },
      { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'throttlingException', message: 'Too many requests' } }) },
    ]);
    const corrupt = Buffer.from(converse);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 0xff, corrupt.length - 1);
    expect(new EventStreamFramer().push(corrupt)).toEqual([{ event: 'error', data: expect.stringContaining('BrokenStream') }]);
  });

  it('reads a ConverseStream to OpenAI chunks with usage (cache reads included in the prompt)', () => {
    const converter = bedrockProvider.chat.stream(bedrock({ stream: true, upstreamModel: 'amazon.nova-pro-v1:0' }));
    const text = [
      'event: messageStart\ndata: {"role":"assistant"}',
      'event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"Hel"}}',
      'event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"lo"}}',
      'event: messageStop\ndata: {"stopReason":"max_tokens"}',
      'event: metadata\ndata: {"usage":{"inputTokens":10,"outputTokens":2,"cacheReadInputTokens":30}}',
    ].join('\n\n');
    const outputs = runStream(converter, `${text}\n\n`, 5);
    expect(outputs.map((output) => output.text ?? '').join('')).toBe('Hello');
    expect(outputs.some((output) => output.data?.includes('"finish_reason":"length"'))).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 40, completion_tokens: 2, cached_tokens: 30 });
  });
});

describe('bedrock errors', () => {
  it('turns credential refusals into authentication errors (auto-ban), and keeps throttling a rate limit', () => {
    expect(bedrockProvider.error(403, '{"message":"The security token included in the request is invalid."}')).toMatchObject({ type: 'authentication_error' });
    expect(bedrockProvider.error(403, '{"message":"The request signature we calculated does not match the signature you provided."}')).toMatchObject({
      type: 'authentication_error',
    });
    expect(bedrockProvider.error(429, '{"message":"Too many requests, please wait before trying again."}')).toEqual({
      message: 'Too many requests, please wait before trying again.',
      type: 'rate_limit_error',
      code: 'bedrock_429',
    });
    expect(bedrockProvider.error(400, '{"message":"Malformed input request"}')).toMatchObject({ type: 'upstream_error', message: 'Malformed input request' });
  });
});
