import { ChannelType } from '@aigw/contracts';
import { anthropicProvider } from '../../src/providers/anthropic/index.js';
import { InvalidChatRequestError } from '../../src/providers/shared/chat-request.js';
import {
  channel,
  chunksOf,
  context,
  fixtureJson,
  fixtureText,
  lastUsage,
  PIXEL_PNG,
  runStream,
  sampleChatRequest,
  textOf,
  toolRoundTripRequest,
} from './support.js';

const claude = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ upstreamModel: 'claude-sonnet-4-20250514', requestedModel: 'claude-sonnet-4', channel: channel({ type: ChannelType.Anthropic }), ...overrides });
const sentBody = (body: Record<string, unknown>, ctx = claude()) => JSON.parse(anthropicProvider.chat.request(body, ctx).body!);

describe('anthropic provider: request', () => {
  it('converts an OpenAI chat request to the Messages API', () => {
    const request = anthropicProvider.chat.request(sampleChatRequest(), claude());
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toEqual({ 'Content-Type': 'application/json', 'x-api-key': 'sk-upstream-key', 'anthropic-version': '2023-06-01' });
    expect(JSON.parse(request.body!)).toEqual({
      model: 'claude-sonnet-4-20250514',
      system: 'You are a terse assistant.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture? Then get the weather in Paris.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/photos/cat.jpg' } },
          ],
        },
      ],
      max_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather for a city',
          input_schema: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      ],
      tool_choice: { type: 'auto' },
    });
    expect(request.warnings).toBeUndefined();
  });

  it('converts tool calls and tool results, merging the results into one user turn', () => {
    const body = toolRoundTripRequest();
    (body.messages as unknown[]).push({ role: 'tool', tool_call_id: 'call_def', content: 'second result' }, { role: 'user', content: 'Thanks!' });
    const { messages } = sentBody(body);
    expect(messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Paris' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_abc', content: '{"temperature_c":18,"sky":"clear"}' },
          { type: 'tool_result', tool_use_id: 'call_def', content: 'second result' },
          { type: 'text', text: 'Thanks!' },
        ],
      },
    ]);
  });

  it('defaults max_tokens to 8192, prefers max_completion_tokens, and asks for a stream', () => {
    const minimal = { model: 'claude', messages: [{ role: 'user', content: 'Hi' }] };
    expect(sentBody(minimal)).toEqual({
      model: 'claude-sonnet-4-20250514',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      max_tokens: 8192,
    });
    expect(sentBody({ ...minimal, max_tokens: 10, max_completion_tokens: 20, stream: true, stream_options: { include_usage: true } })).toMatchObject({
      max_tokens: 20,
      stream: true,
    });
  });

  it.each([
    ['required', { type: 'any' }],
    ['none', { type: 'none' }],
    [
      { type: 'function', function: { name: 'get_weather' } },
      { type: 'tool', name: 'get_weather' },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    expect(sentBody(sampleChatRequest({ tool_choice: choice })).tool_choice).toEqual(expected);
  });

  it('maps parallel_tool_calls: false and user', () => {
    expect(sentBody(sampleChatRequest({ parallel_tool_calls: false, user: 'user-42' }))).toMatchObject({
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      metadata: { user_id: 'user-42' },
    });
  });

  it('reports the parameters it drops, and applies the channel overrides last', () => {
    const request = anthropicProvider.chat.request(
      sampleChatRequest({ presence_penalty: 0.5, logit_bias: { 50256: -100 }, seed: null }),
      claude({ channel: channel({ type: ChannelType.Anthropic, param_override: { top_k: 40, temperature: 1 } }) }),
    );
    expect(request.warnings).toEqual([
      'parameter "presence_penalty" is not supported by Anthropic and was dropped',
      'parameter "logit_bias" is not supported by Anthropic and was dropped',
    ]);
    expect(JSON.parse(request.body!)).toMatchObject({ top_k: 40, temperature: 1 });
  });

  it('refuses a request without messages as the client error it is', () => {
    expect(() => anthropicProvider.chat.request({ model: 'claude' }, claude())).toThrow(InvalidChatRequestError);
  });
});

describe('anthropic provider: answers', () => {
  it('converts a message to a chat completion, usage counting cache reads and writes as prompt', () => {
    const result = anthropicProvider.chat.response(fixtureJson('anthropic/messages-response.json'), claude());
    expect(result.usage).toEqual({ prompt_tokens: 412 + 2048, completion_tokens: 71, cached_tokens: 2048 });
    expect(result.body).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'claude-sonnet-4-20250514',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: "A single red pixel. I'll check the weather in Paris.",
            tool_calls: [{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 2460, completion_tokens: 71, total_tokens: 2531, prompt_tokens_details: { cached_tokens: 2048 } },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to %s', (stopReason, finishReason) => {
    const json = {
      id: 'msg_1',
      model: 'claude',
      content: [{ type: 'text', text: 'x' }],
      stop_reason: stopReason,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    expect(anthropicProvider.chat.response(json, claude()).body).toMatchObject({ choices: [{ finish_reason: finishReason }] });
  });

  it('converts the stream: role, text, tool call deltas, finish reason, then usage', () => {
    const outputs = runStream(anthropicProvider.chat.stream(claude({ stream: true })), fixtureText('anthropic/messages-stream.sse'));
    const chunks = chunksOf(outputs);
    expect(
      chunks.every(
        (chunk) => chunk.id === 'msg_014p7gG3wDgGV9EUtLvnow3U' && chunk.object === 'chat.completion.chunk' && chunk.model === 'claude-sonnet-4-20250514',
      ),
    ).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'A single red pixel.' },
      { content: ' Checking Paris now.' },
      { tool_calls: [{ index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": "Par' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] },
      {},
      null,
    ]);
    expect(chunks.map((chunk) => (chunk.choices.length > 0 ? chunk.choices[0].finish_reason : 'none'))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      'tool_calls',
      'none',
    ]);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3996, completion_tokens: 89, total_tokens: 4085, prompt_tokens_details: { cached_tokens: 2048 } },
    });
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 412 + 1536 + 2048, completion_tokens: 89, cached_tokens: 2048, cache_creation_tokens: 1536 });
    expect(textOf(outputs)).toBe('A single red pixel. Checking Paris now.{"city": "Paris"}');
  });

  it('streams thinking as reasoning_content', () => {
    const converter = anthropicProvider.chat.stream(claude());
    const [output] = converter.onEvent({
      event: 'content_block_delta',
      data: '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}',
    });
    expect(JSON.parse(output!.data!).choices[0].delta).toEqual({ reasoning_content: 'Hmm.' });
    expect(output!.text).toBe('Hmm.');
  });

  it('turns an error event into a stream error', () => {
    const outputs = runStream(anthropicProvider.chat.stream(claude()), fixtureText('anthropic/stream-overloaded.sse'));
    expect(outputs.at(-1)).toEqual({ error: { message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' } });
    expect(lastUsage(outputs)).toBeNull();
  });
});

describe('anthropic provider: models and errors', () => {
  it('lists models with the same headers', () => {
    const request = anthropicProvider.models!.request({
      channel: channel({ type: ChannelType.Anthropic, base_url: 'https://claude.proxy/v1' }),
      key: 'sk-ant-1',
    });
    expect(request).toEqual({
      method: 'GET',
      url: 'https://claude.proxy/v1/models?limit=1000',
      headers: { 'Content-Type': 'application/json', 'x-api-key': 'sk-ant-1', 'anthropic-version': '2023-06-01' },
    });
    const list = {
      data: [{ type: 'model', id: 'claude-sonnet-4-20250514', display_name: 'Claude Sonnet 4', created_at: '2025-05-22T00:00:00Z' }],
      has_more: false,
      first_id: 'claude-sonnet-4-20250514',
      last_id: 'claude-sonnet-4-20250514',
    };
    expect(anthropicProvider.models!.parse(list)).toEqual(['claude-sonnet-4-20250514']);
  });

  it('normalises an Anthropic error body', () => {
    expect(anthropicProvider.error(429, fixtureText('anthropic/error-429.json'))).toEqual({
      message: 'This request would exceed the rate limit for your organization (a1b2c3d4) of 50,000 input tokens per minute.',
      type: 'rate_limit_error',
      code: 'rate_limit_error',
    });
  });
});
