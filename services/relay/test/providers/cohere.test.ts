import { ChannelType } from '@aigw/contracts';
import { cohereProvider } from '../../src/providers/cohere/index.js';
import { cohereEmbeddingsAnswer } from '../../src/providers/cohere/embed.js';
import { cohereRerankAnswer } from '../../src/providers/cohere/rerank.js';
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

const cohere = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ upstreamModel: 'command-a-03-2025', requestedModel: 'command-a', channel: channel({ type: ChannelType.Cohere }), ...overrides });
const sentBody = (body: Record<string, unknown>, ctx = cohere()) => JSON.parse(cohereProvider.chat.request(body, ctx).body!);
const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer sk-upstream-key' };

describe('cohere provider: chat request', () => {
  it('converts an OpenAI chat request to v2 chat, the key as Bearer', () => {
    const request = cohereProvider.chat.request(sampleChatRequest({ seed: 7 }), cohere());
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.cohere.ai/v2/chat');
    expect(request.headers).toEqual(headers);
    expect(JSON.parse(request.body!)).toEqual({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'You are a terse assistant.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture? Then get the weather in Paris.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG}`, detail: 'low' } },
            { type: 'image_url', image_url: { url: 'https://example.com/photos/cat.jpg' } },
          ],
        },
      ],
      max_tokens: 256,
      temperature: 0.2,
      p: 0.9,
      stop_sequences: ['END'],
      seed: 7,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
        },
      ],
    });
    expect(request.warnings).toBeUndefined();
  });

  it('sends tool calls and tool results as Cohere messages, in order', () => {
    const { messages } = sentBody(toolRoundTripRequest());
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"temperature_c":18,"sky":"clear"}' },
    ]);
  });

  it('maps developer to system, prefers max_completion_tokens, asks for a stream and leaves out an empty assistant turn', () => {
    const body = {
      model: 'command-a',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'Still there?' },
      ],
      max_tokens: 10,
      max_completion_tokens: 20,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    };
    expect(sentBody(body)).toEqual({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'user', content: 'Still there?' },
      ],
      max_tokens: 20,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      stream: true,
    });
  });

  it.each([
    ['auto', undefined, []],
    ['none', 'NONE', []],
    ['required', 'REQUIRED', []],
    [
      { type: 'function', function: { name: 'get_weather' } },
      'REQUIRED',
      ['tool_choice "get_weather": Cohere can require a tool call but not name the function; the name was dropped'],
    ],
  ])('maps tool_choice %j', (choice, expected, warnings) => {
    const request = cohereProvider.chat.request(sampleChatRequest({ tool_choice: choice }), cohere());
    expect(JSON.parse(request.body!).tool_choice).toEqual(expected);
    expect(request.warnings ?? []).toEqual(warnings);
  });

  it('asks for JSON output, with the schema when the client gave one', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    expect(sentBody(sampleChatRequest({ response_format: { type: 'json_object' } })).response_format).toEqual({ type: 'json_object' });
    expect(sentBody(sampleChatRequest({ response_format: { type: 'json_schema', json_schema: { name: 'a', schema } } })).response_format).toEqual({
      type: 'json_object',
      json_schema: schema,
    });
    expect(sentBody(sampleChatRequest({ response_format: { type: 'text' } })).response_format).toBeUndefined();
  });

  it('reports the parameters it drops, and applies the channel overrides last', () => {
    const request = cohereProvider.chat.request(
      sampleChatRequest({ n: 2, logit_bias: { 50256: -100 }, user: 'user-42', parallel_tool_calls: false, seed: null }),
      cohere({ channel: channel({ type: ChannelType.Cohere, param_override: { k: 40, temperature: 1, safety_mode: 'OFF' } }) }),
    );
    expect(request.warnings).toEqual([
      'parameter "n" is not supported by Cohere and was dropped',
      'parameter "logit_bias" is not supported by Cohere and was dropped',
      'parameter "user" is not supported by Cohere and was dropped',
      'parameter "parallel_tool_calls" is not supported by Cohere and was dropped',
    ]);
    expect(JSON.parse(request.body!)).toMatchObject({ k: 40, temperature: 1, safety_mode: 'OFF' });
  });

  it('takes base_url as the endpoint override, a pasted version dropped', () => {
    for (const base_url of ['https://cohere.proxy', 'https://cohere.proxy/', 'https://cohere.proxy/v1', 'https://cohere.proxy/v2']) {
      const request = cohereProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, cohere({ channel: channel({ type: 34, base_url }) }));
      expect(request.url).toBe('https://cohere.proxy/v2/chat');
    }
  });

  it('refuses a request without messages as the client error it is', () => {
    expect(() => cohereProvider.chat.request({ model: 'command-a' }, cohere())).toThrow(InvalidChatRequestError);
  });
});

describe('cohere provider: chat answers', () => {
  it('converts an answer to a chat completion, billing the billed units', () => {
    const result = cohereProvider.chat.response(fixtureJson('cohere/chat-response.json'), cohere());
    expect(result.usage).toEqual({ prompt_tokens: 41, completion_tokens: 14, cached_tokens: 0 });
    expect(result.body).toEqual({
      id: 'c14c80c3-18eb-4519-9460-6c92edd8cfb4',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'command-a-03-2025',
      choices: [{ index: 0, message: { role: 'assistant', content: 'A cat on a windowsill. I will look up the weather next.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 41, completion_tokens: 14, total_tokens: 55, prompt_tokens_details: { cached_tokens: 0 } },
    });
  });

  it('converts tool calls, the tool plan as reasoning_content', () => {
    const { body } = cohereProvider.chat.response(fixtureJson('cohere/chat-tool-response.json'), cohere());
    expect(body.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          reasoning_content: 'I will look up the weather in Paris.',
          tool_calls: [{ id: 'get_weather_k7x2m9q4v1pz', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('falls back to tokens when the billed units are missing, and reports no usage when there is none', () => {
    const message = { role: 'assistant', content: [{ type: 'text', text: 'x' }] };
    const tokensOnly = { finish_reason: 'COMPLETE', message, usage: { tokens: { input_tokens: 500, output_tokens: 2 } } };
    expect(cohereProvider.chat.response(tokensOnly, cohere()).usage).toEqual({ prompt_tokens: 500, completion_tokens: 2, cached_tokens: 0 });
    expect(cohereProvider.chat.response({ finish_reason: 'COMPLETE', message }, cohere()).usage).toBeNull();
  });

  it.each([
    ['COMPLETE', 'stop'],
    ['STOP_SEQUENCE', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['TOOL_CALL', 'tool_calls'],
    ['ERROR', 'stop'],
  ])('maps finish_reason %s to %s', (reason, finishReason) => {
    const json = { finish_reason: reason, message: { role: 'assistant', content: [{ type: 'text', text: 'x' }] } };
    expect(cohereProvider.chat.response(json, cohere()).body).toMatchObject({ choices: [{ finish_reason: finishReason }] });
  });

  it('answers 502 for a 2xx body that is not a chat answer', () => {
    expect(() => cohereProvider.chat.response({ text: 'v1 shape' }, cohere())).toThrow('cohere upstream answered with an unexpected body: message');
  });

  it('converts the stream: role, text, finish reason, then the usage of the billed units', () => {
    const outputs = runStream(cohereProvider.chat.stream(cohere({ stream: true })), fixtureText('cohere/chat-stream.sse'));
    const chunks = chunksOf(outputs);
    expect(chunks.every((chunk) => chunk.id === '29f14a5a-11de-4cae-9800-25e4747408ea' && chunk.model === 'command-a-03-2025')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hello' },
      { content: ' there' },
      { content: '!' },
      {},
      null,
    ]);
    expect(chunks.map((chunk) => (chunk.choices.length > 0 ? chunk.choices[0].finish_reason : 'none'))).toEqual([null, null, null, null, 'stop', 'none']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 9, completion_tokens: 3, cached_tokens: 0 });
    expect(textOf(outputs)).toBe('Hello there!');
    expect(outputs.some((output) => output.error)).toBe(false);
  });

  it('streams the tool plan as reasoning_content and tool calls as tool_calls deltas', () => {
    const outputs = runStream(cohereProvider.chat.stream(cohere({ stream: true })), fixtureText('cohere/chat-tool-stream.sse'), 53);
    expect(chunksOf(outputs).map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'I will check' },
      { reasoning_content: ' the weather.' },
      { tool_calls: [{ index: 0, id: 'get_weather_a1b2c3d4e5f6', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      {},
      null,
    ]);
    expect(chunksOf(outputs).at(-2)!.choices[0].finish_reason).toBe('tool_calls');
    expect(textOf(outputs)).toBe('I will check the weather.{"city":"Paris"}');
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 52, completion_tokens: 23, cached_tokens: 0 });
  });

  it('streams thinking as reasoning_content', () => {
    const [output] = cohereProvider.chat
      .stream(cohere())
      .onEvent({ event: 'content-delta', data: '{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"Hmm."}}}}' });
    expect(JSON.parse(output!.data!).choices[0].delta).toEqual({ reasoning_content: 'Hmm.' });
    expect(output!.text).toBe('Hmm.');
  });

  it('turns a message-end carrying an error, and an event that is not JSON, into stream errors', () => {
    const outputs = runStream(cohereProvider.chat.stream(cohere()), fixtureText('cohere/stream-error.sse'));
    expect(outputs.at(-1)).toEqual({
      error: { message: 'internal server error, this has been reported to our developers', type: 'upstream_error', code: 'ERROR' },
    });
    expect(textOf(outputs)).toBe('Partial');
    expect(lastUsage(outputs)).toBeNull();
    expect(cohereProvider.chat.stream(cohere()).onEvent({ data: '{"type": broken' })).toEqual([
      { error: { message: 'Cohere sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } },
    ]);
  });
});

describe('cohere provider: rerank and embeddings', () => {
  const documents = [
    'Carson City is the capital city of Nevada.',
    { text: 'The capital of France is Paris.' },
    'Washington, D.C. is the capital of the United States.',
  ];

  it("lists chat, embeddings and rerank, converting embed and rerank answers to the client's shapes", () => {
    expect(cohereProvider.operations).toEqual(['chat', 'embeddings', 'rerank']);
    expect(typeof cohereProvider.passthrough?.answer).toBe('function');
  });

  it('sends /v1/rerank to v2 rerank, the documents as texts', () => {
    const request = cohereProvider.passthrough!.request(
      '/v1/rerank',
      { model: 'rerank-v3.5', query: 'capital of the USA', documents, top_n: 2, return_documents: true, instruction: 'x' },
      cohere({ upstreamModel: 'rerank-v3.5' }),
    );
    expect(request).toEqual({
      method: 'POST',
      url: 'https://api.cohere.ai/v2/rerank',
      headers,
      body: JSON.stringify({
        model: 'rerank-v3.5',
        query: 'capital of the USA',
        documents: [documents[0], 'The capital of France is Paris.', documents[2]],
        top_n: 2,
      }),
      warnings: [
        'parameter "instruction" is not supported by Cohere and was dropped',
        'return_documents: Cohere answers indexes and scores only, the documents were not returned',
      ],
    });
  });

  it("puts a rerank answer in Jina's shape, the documents back from the request (for a converting passthrough)", () => {
    const request = { model: 'rerank-v3.5', query: 'capital of the USA', documents };
    expect(cohereRerankAnswer(fixtureJson('cohere/rerank-response.json'), request, cohere({ upstreamModel: 'rerank-v3.5' }))).toEqual({
      id: '07734bd2-2473-4f07-94e1-0d9f0e6843cf',
      model: 'rerank-v3.5',
      results: [
        { index: 2, relevance_score: 0.9990564, document: { text: documents[2] } },
        { index: 0, relevance_score: 0.0016724099, document: { text: documents[0] } },
      ],
    });
    expect(cohereRerankAnswer(fixtureJson('cohere/rerank-response.json'), { ...request, return_documents: false }, cohere()).results).toEqual([
      { index: 2, relevance_score: 0.9990564 },
      { index: 0, relevance_score: 0.0016724099 },
    ]);
  });

  it('builds a v2 embed call: texts, search_document unless named, float embeddings, dimensions as output_dimension', () => {
    const ctx = cohere({ upstreamModel: 'embed-v4.0' });
    const request = cohereProvider.passthrough!.request('/v1/embeddings', { model: 'embed', input: ['hello', 'goodbye'], dimensions: 256, user: 'u' }, ctx);
    expect(request).toMatchObject({
      method: 'POST',
      url: 'https://api.cohere.ai/v2/embed',
      headers,
      warnings: ['parameter "user" is not supported by Cohere and was dropped'],
    });
    expect(JSON.parse(request.body!)).toEqual({
      model: 'embed-v4.0',
      texts: ['hello', 'goodbye'],
      input_type: 'search_document',
      embedding_types: ['float'],
      output_dimension: 256,
    });
    const query = cohereProvider.passthrough!.request('/v1/embeddings', { model: 'embed', input: 'where?', input_type: 'search_query' }, ctx);
    expect(JSON.parse(query.body!)).toMatchObject({ texts: ['where?'], input_type: 'search_query' });
    expect(() => cohereProvider.passthrough!.request('/v1/embeddings', { model: 'embed', input: [1, 2, 3] }, ctx)).toThrow(InvalidChatRequestError);
  });

  it("puts an embed answer in OpenAI's shape, floats or base64 as the client asked, with the billed input tokens", () => {
    const json = fixtureJson('cohere/embed-response.json');
    expect(cohereProvider.passthrough!.usage(json)).toEqual({ prompt_tokens: 2, completion_tokens: 0, cached_tokens: 0 });
    const floats = cohereEmbeddingsAnswer(json, { input: ['hello', 'goodbye'] }, cohere({ upstreamModel: 'embed-v4.0' }));
    expect(floats).toEqual({
      body: {
        object: 'list',
        data: [
          { object: 'embedding', index: 0, embedding: [0.016296387, -0.008354187, -0.04699707] },
          { object: 'embedding', index: 1, embedding: [-0.03125, 0.0259552, 0.0078125] },
        ],
        model: 'embed-v4.0',
        usage: { prompt_tokens: 2, total_tokens: 2 },
      },
      usage: { prompt_tokens: 2, completion_tokens: 0, cached_tokens: 0 },
    });
    const base64 = cohereEmbeddingsAnswer(json, { input: ['hello', 'goodbye'], encoding_format: 'base64' }, cohere()).body.data as Array<{ embedding: string }>;
    const decoded = Buffer.from(base64[1]!.embedding, 'base64');
    expect(Array.from(new Float32Array(decoded.buffer, decoded.byteOffset, decoded.length / 4))).toEqual([-0.03125, Math.fround(0.0259552), 0.0078125]);
  });
});

describe('cohere provider: models and errors', () => {
  it('lists models from GET /v1/models, in one page', () => {
    const request = cohereProvider.models!.request({ channel: channel({ type: ChannelType.Cohere }), key: 'co-key' });
    expect(request).toEqual({
      method: 'GET',
      url: 'https://api.cohere.ai/v1/models?page_size=1000',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer co-key' },
    });
    expect(cohereProvider.models!.parse(fixtureJson('cohere/models.json'))).toEqual(['command-a-03-2025', 'embed-v4.0', 'rerank-v3.5']);
  });

  it("normalises Cohere's {message} error body, its kind from the status", () => {
    expect(cohereProvider.error(429, fixtureText('cohere/error-429.json'))).toEqual({
      message:
        "You are using a Trial key, which is limited to 10 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'.",
      type: 'rate_limit_error',
      code: '429',
    });
    expect(cohereProvider.error(401, '{"message":"invalid api token"}')).toEqual({ message: 'invalid api token', type: 'authentication_error', code: '401' });
    expect(cohereProvider.error(500, '{"message":"internal server error"}').type).toBe('server_error');
    expect(cohereProvider.error(502, '<html>bad gateway</html>')).toEqual({ message: '<html>bad gateway</html>', type: 'upstream_error', code: '502' });
  });
});
