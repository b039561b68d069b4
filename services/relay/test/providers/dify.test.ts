import { ChannelType } from '@aigw/contracts';
import { difyProvider } from '../../src/providers/dify/index.js';
import { InvalidChatRequestError } from '../../src/providers/shared/chat-request.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, runStream, sampleChatRequest, textOf, toolRoundTripRequest } from './support.js';

const dify = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: 'app-Kx8s0aP2', upstreamModel: 'dify-app', requestedModel: 'dify-app', channel: channel({ type: ChannelType.Dify }), ...overrides });
const sentBody = (body: Record<string, unknown>, ctx = dify()) => JSON.parse(difyProvider.chat.request(body, ctx).body!);

describe('dify provider: chat request', () => {
  it('sends one user message as the query of a new conversation, the app key as Bearer', () => {
    const request = difyProvider.chat.request({ model: 'dify-app', messages: [{ role: 'user', content: 'What is Dify?' }] }, dify());
    expect(request).toEqual({
      method: 'POST',
      url: 'https://api.dify.ai/v1/chat-messages',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer app-Kx8s0aP2' },
      body: JSON.stringify({ inputs: {}, query: 'What is Dify?', response_mode: 'blocking', user: 'aigw', conversation_id: '' }),
    });
  });

  it('folds the earlier turns into the query as a transcript ending with the last user message, and streams when asked', () => {
    const body = {
      model: 'dify-app',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! How can I help?' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Name a ' },
            { type: 'text', text: 'colour.' },
          ],
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
    };
    const request = difyProvider.chat.request(body, dify());
    expect(JSON.parse(request.body!)).toEqual({
      inputs: {},
      query: 'System: Be brief.\n\nUser: Hi\n\nAssistant: Hello! How can I help?\n\nUser: Name a colour.',
      response_mode: 'streaming',
      user: 'aigw',
      conversation_id: '',
    });
    expect(request.warnings).toBeUndefined();
  });

  it('writes tool calls and results into the transcript, drops what Dify cannot take and says so', () => {
    const round = toolRoundTripRequest();
    const request = difyProvider.chat.request(
      { ...round, messages: [...(round.messages as unknown[]), { role: 'user', content: 'And tomorrow?' }], n: 2, seed: null },
      dify(),
    );
    expect(JSON.parse(request.body!).query).toBe(
      [
        'System: You are a terse assistant.',
        'User: What is in this picture? Then get the weather in Paris.',
        'Assistant: [called get_weather({"city":"Paris"})]',
        'Tool: {"temperature_c":18,"sky":"clear"}',
        'User: And tomorrow?',
      ].join('\n\n'),
    );
    expect(request.warnings).toEqual([
      'parameter "tools" is not supported by Dify and was dropped (the Dify app sets its own)',
      'parameter "tool_choice" is not supported by Dify and was dropped (the Dify app sets its own)',
      'parameter "temperature" is not supported by Dify and was dropped (the Dify app sets its own)',
      'parameter "top_p" is not supported by Dify and was dropped (the Dify app sets its own)',
      'parameter "max_tokens" is not supported by Dify and was dropped (the Dify app sets its own)',
      'parameter "stop" is not supported by Dify and was dropped (the Dify app sets its own)',
      'parameter "n" is not supported by Dify and was dropped (the Dify app sets its own)',
      'images and other non-text parts of earlier messages are not supported by Dify and were dropped',
    ]);
  });

  it("sends the last user message's image URLs as files, and reports inline images it cannot send", () => {
    const request = difyProvider.chat.request(
      sampleChatRequest({ tools: null, tool_choice: null, temperature: null, top_p: null, max_tokens: null, stop: null }),
      dify(),
    );
    expect(JSON.parse(request.body!)).toMatchObject({
      query: 'System: You are a terse assistant.\n\nUser: What is in this picture? Then get the weather in Paris.',
      files: [{ type: 'image', transfer_method: 'remote_url', url: 'https://example.com/photos/cat.jpg' }],
    });
    expect(request.warnings).toEqual(['inline images (data URLs) are not supported by Dify without an upload and were dropped']);
  });

  it('drops messages after the last user message and unknown roles, with warnings', () => {
    const request = difyProvider.chat.request(
      {
        messages: [
          { role: 'function', content: 'old' },
          { role: 'user', content: 'Finish this: once upon' },
          { role: 'assistant', content: 'a time' },
        ],
      },
      dify(),
    );
    expect(JSON.parse(request.body!).query).toBe('Finish this: once upon');
    expect(request.warnings).toEqual([
      '1 message(s) after the last user message are not supported by Dify and were dropped',
      'message role "function" is not supported by Dify and was dropped',
    ]);
  });

  it("merges the channel's param_override (the app's inputs) and takes base_url as the endpoint, with or without /v1", () => {
    const ctx = dify({ channel: channel({ type: ChannelType.Dify, base_url: 'http://dify.internal/v1/', param_override: { inputs: { lang: 'fr' } } }) });
    const request = difyProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, ctx);
    expect(request.url).toBe('http://dify.internal/v1/chat-messages');
    expect(JSON.parse(request.body!).inputs).toEqual({ lang: 'fr' });
    expect(
      difyProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, dify({ channel: channel({ base_url: 'http://dify.internal' }) })).url,
    ).toBe('http://dify.internal/v1/chat-messages');
  });

  it('refuses a request without a user message, or without messages, as the client error it is', () => {
    expect(() => sentBody({ messages: [{ role: 'system', content: 'x' }] })).toThrow(InvalidChatRequestError);
    expect(() => sentBody({ messages: [{ role: 'system', content: 'x' }] })).toThrow('a Dify app answers a user message: the request has none');
    expect(() => sentBody({ model: 'dify-app' })).toThrow(InvalidChatRequestError);
  });
});

describe('dify provider: answers', () => {
  it('converts a blocking answer to a chat completion, billing its metadata.usage', () => {
    const result = difyProvider.chat.response(fixtureJson('dify/chat-response.json'), dify());
    expect(result.usage).toEqual({ prompt_tokens: 1033, completion_tokens: 128, cached_tokens: 0 });
    expect(result.body).toEqual({
      id: '9da23599-e713-473b-982c-4328d4f5c78a',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'dify-app',
      choices: [{ index: 0, message: { role: 'assistant', content: 'The iPhone 13 Pro Max has a 6.7 inch display.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1033, completion_tokens: 128, total_tokens: 1161, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(difyProvider.chat.response({ answer: 'x', metadata: {} }, dify()).usage).toBeNull();
    expect(() => difyProvider.chat.response({ event: 'message' }, dify())).toThrow('dify upstream answered with an unexpected body: answer');
  });

  it('converts the stream: the role with the first text, the text, the finish, then the usage of message_end', () => {
    const outputs = runStream(difyProvider.chat.stream(dify({ stream: true })), fixtureText('dify/chat-stream.sse'));
    const chunks = chunksOf(outputs);
    expect(chunks.every((chunk) => chunk.id === '5ad4cb98-f0c7-4085-b384-88c403be6290' && chunk.model === 'dify-app')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: ' I' },
      { content: "'m glad" },
      { content: ' to meet you' },
      {},
      null,
    ]);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1033, completion_tokens: 135, total_tokens: 1168 } });
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 1033, completion_tokens: 135, cached_tokens: 0 });
    expect(textOf(outputs)).toBe(" I'm glad to meet you");
    expect(difyProvider.streamUsage).toBe(true);
  });

  it("shows nothing of a chatflow's workflow events by default", () => {
    const outputs = runStream(difyProvider.chat.stream(dify({ stream: true })), fixtureText('dify/chatflow-stream.sse'), 64);
    expect(chunksOf(outputs).map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: 'Hello' },
      { content: ' there!' },
      {},
      null,
    ]);
    expect(textOf(outputs)).toBe('Hello there!');
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 28, completion_tokens: 3, cached_tokens: 0 });
  });

  it('shows the workflow events as reasoning_content when the channel setting dify_workflow_events is on, uncounted', () => {
    const ctx = dify({ stream: true, channel: channel({ type: ChannelType.Dify, setting: { dify_workflow_events: true } }) });
    const outputs = runStream(difyProvider.chat.stream(ctx), fixtureText('dify/chatflow-stream.sse'), 64);
    expect(chunksOf(outputs).map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', reasoning_content: 'workflow started\n' },
      { reasoning_content: 'node "LLM" started\n' },
      { content: 'Hello' },
      { content: ' there!' },
      { reasoning_content: 'node "LLM" succeeded\n' },
      { reasoning_content: 'workflow succeeded\n' },
      {},
      null,
    ]);
    expect(textOf(outputs)).toBe('Hello there!');
  });

  it('turns an error event into a stream error after the text so far, and an event that is not JSON too', () => {
    const outputs = runStream(difyProvider.chat.stream(dify()), fixtureText('dify/stream-error.sse'));
    expect(outputs.at(-1)).toEqual({
      error: { message: '[openai] Rate Limit Error, Error code: 429', type: 'invalid_request_error', code: 'completion_request_error' },
    });
    expect(textOf(outputs)).toBe('Partial');
    expect(lastUsage(outputs)).toBeNull();
    expect(difyProvider.chat.stream(dify()).onEvent({ data: '{"event": broken' })).toEqual([
      { error: { message: 'Dify sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } },
    ]);
    expect(difyProvider.chat.stream(dify()).onEvent({ event: 'ping', data: '' })).toEqual([]);
  });

  it('reports agent messages as content and a moderation replacement as its text', () => {
    const converter = difyProvider.chat.stream(dify());
    const [agent] = converter.onEvent({ data: '{"event":"agent_message","message_id":"m1","answer":"Thinking done."}' });
    const [replaced] = converter.onEvent({ data: '{"event":"message_replace","message_id":"m1","answer":"Sorry, I cannot answer that."}' });
    expect(converter.onEvent({ data: '{"event":"agent_thought","id":"t1","thought":"use a tool"}' })).toEqual([]);
    expect(JSON.parse(agent!.data!).choices[0].delta).toEqual({ role: 'assistant', content: 'Thinking done.' });
    expect(JSON.parse(replaced!.data!).choices[0].delta).toEqual({ content: 'Sorry, I cannot answer that.' });
  });
});

describe('dify provider: errors', () => {
  it("maps Dify's {code, message, status}: a bad app key is an authentication error, an exhausted provider quota a quota error", () => {
    expect(difyProvider.error(401, fixtureText('dify/error-401.json'))).toEqual({
      message: 'Access token is invalid',
      type: 'authentication_error',
      code: 'unauthorized',
    });
    expect(difyProvider.error(400, fixtureText('dify/error-400-quota.json'))).toMatchObject({ type: 'insufficient_quota', code: 'provider_quota_exceeded' });
    expect(difyProvider.error(400, '{"code":"invalid_param","message":"query is required","status":400}').type).toBe('invalid_request_error');
    expect(difyProvider.error(404, '{"code":"not_found","message":"Conversation Not Exists.","status":404}').type).toBe('not_found_error');
    expect(difyProvider.error(500, '{"message":"Internal Server Error","code":"unknown"}').type).toBe('server_error');
    expect(difyProvider.error(502, '<html>bad gateway</html>')).toEqual({ message: '<html>bad gateway</html>', type: 'upstream_error', code: '502' });
  });
});
