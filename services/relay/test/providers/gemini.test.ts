import { ChannelType } from '@aigw/contracts';
import { geminiProvider } from '../../src/providers/gemini/index.js';
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

const gemini = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ upstreamModel: 'gemini-2.5-flash', requestedModel: 'gemini-2.5-flash', channel: channel({ type: ChannelType.Gemini }), ...overrides });
const sentBody = (body: Record<string, unknown>) => JSON.parse(geminiProvider.chat.request(body, gemini()).body!);

describe('gemini provider: request', () => {
  it('converts an OpenAI chat request to generateContent, the key in a header', () => {
    const request = geminiProvider.chat.request(sampleChatRequest(), gemini());
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(request.headers).toEqual({ 'Content-Type': 'application/json', 'x-goog-api-key': 'sk-upstream-key' });
    expect(JSON.parse(request.body!)).toEqual({
      systemInstruction: { parts: [{ text: 'You are a terse assistant.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is in this picture? Then get the weather in Paris.' },
            { inlineData: { mimeType: 'image/png', data: PIXEL_PNG } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photos/cat.jpg' } },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather for a city',
              // $schema and additionalProperties are removed: Gemini's schema dialect rejects them.
              parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { temperature: 0.2, topP: 0.9, maxOutputTokens: 256, stopSequences: ['END'] },
    });
    expect(request.url).not.toContain('key=');
  });

  it('streams through streamGenerateContent with SSE, and takes the API version from the channel', () => {
    expect(geminiProvider.chat.request(sampleChatRequest({ stream: true }), gemini({ stream: true })).url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(geminiProvider.chat.request(sampleChatRequest(), gemini({ channel: channel({ type: ChannelType.Gemini, other: 'v1' }) })).url).toBe(
      'https://generativelanguage.googleapis.com/v1/models/gemini-2.5-flash:generateContent',
    );
  });

  it('converts tool calls to functionCall and tool results to functionResponse named after the call', () => {
    const { contents } = sentBody(toolRoundTripRequest());
    expect(contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature_c: 18, sky: 'clear' } } }] },
    ]);
  });

  it('maps tool_choice, penalties, seed and JSON output; reports what it drops', () => {
    const request = geminiProvider.chat.request(
      sampleChatRequest({
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        presence_penalty: 0.1,
        frequency_penalty: 0.2,
        seed: 7,
        response_format: { type: 'json_object' },
        logprobs: true,
      }),
      gemini(),
    );
    const body = JSON.parse(request.body!);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(body.generationConfig).toMatchObject({ presencePenalty: 0.1, frequencyPenalty: 0.2, seed: 7, responseMimeType: 'application/json' });
    expect(request.warnings).toEqual(['parameter "logprobs" is not supported by Gemini and was dropped']);
  });
});

describe('gemini provider: answers', () => {
  it('converts a response to a chat completion, thinking tokens counted as completion', () => {
    const result = geminiProvider.chat.response(fixtureJson('gemini/generate-content.json'), gemini());
    expect(result.usage).toEqual({ prompt_tokens: 1304, completion_tokens: 23 + 162, cached_tokens: 1024 });
    expect(result.body).toEqual({
      id: 'kZ0kaJOqHcKf1MkP5vXTmQc',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'A single red pixel. Let me look up Paris.',
            tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 1304, completion_tokens: 185, total_tokens: 1489, prompt_tokens_details: { cached_tokens: 1024 } },
    });
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['OTHER', 'stop'],
  ])('maps finishReason %s to %s', (reason, finish) => {
    const json = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: reason }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
    };
    expect(geminiProvider.chat.response(json, gemini()).body).toMatchObject({ choices: [{ finish_reason: finish }] });
  });

  it('answers a prompt blocked before any candidate with content_filter', () => {
    const json = { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } };
    const result = geminiProvider.chat.response(json, gemini());
    expect(result.body).toMatchObject({ choices: [{ message: { content: '' }, finish_reason: 'content_filter' }] });
    expect(result.usage).toEqual({ prompt_tokens: 9, completion_tokens: 0, cached_tokens: 0 });
  });

  it('converts the stream (CRLF-separated SSE): role, text, whole tool call, finish reason, then usage', () => {
    const outputs = runStream(geminiProvider.chat.stream(gemini({ stream: true })), fixtureText('gemini/stream.sse'));
    const chunks = chunksOf(outputs);
    expect(chunks.every((chunk) => chunk.id === '7Z4kaNKjOcvX1MkPm8a2gQk' && chunk.model === 'gemini-2.5-flash')).toBe(true);
    expect(chunks.map((chunk) => (chunk.choices.length > 0 ? chunk.choices[0].delta : null))).toEqual([
      { role: 'assistant', content: '' },
      { content: 'A single' },
      { content: ' red pixel. Checking Paris.' },
      { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      {},
      null,
    ]);
    expect(chunks[4]!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[5]).toMatchObject({ choices: [], usage: { prompt_tokens: 1304, completion_tokens: 143, prompt_tokens_details: { cached_tokens: 1024 } } });
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 1304, completion_tokens: 24 + 119, cached_tokens: 1024 });
    expect(textOf(outputs)).toBe('A single red pixel. Checking Paris.{"city":"Paris"}');
  });

  it('reports no usage for a stream cut before it finished', () => {
    const sse = fixtureText('gemini/stream.sse').split('\r\n\r\n').slice(0, 2).join('\r\n\r\n');
    const outputs = runStream(geminiProvider.chat.stream(gemini()), sse);
    expect(lastUsage(outputs)).toBeNull();
    expect(textOf(outputs)).toBe('A single red pixel. Checking Paris.');
  });

  it('turns an error event into a stream error', () => {
    const converter = geminiProvider.chat.stream(gemini());
    expect(converter.onEvent({ data: '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}' })).toEqual([
      { error: { message: 'The model is overloaded. Please try again later.', type: 'UNAVAILABLE', code: '503' } },
    ]);
  });
});

describe('gemini provider: models and errors', () => {
  it('lists models without the models/ prefix', () => {
    const request = geminiProvider.models!.request({ channel: channel({ type: ChannelType.Gemini }), key: 'AIzaSy-test' });
    expect(request).toEqual({
      method: 'GET',
      url: 'https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000',
      headers: { 'Content-Type': 'application/json', 'x-goog-api-key': 'AIzaSy-test' },
    });
    const list = { models: [{ name: 'models/gemini-2.5-flash', displayName: 'Gemini 2.5 Flash' }, { name: 'models/text-embedding-004' }] };
    expect(geminiProvider.models!.parse(list)).toEqual(['gemini-2.5-flash', 'text-embedding-004']);
  });

  it('normalises a Google error body', () => {
    expect(geminiProvider.error(429, fixtureText('gemini/error-429.json'))).toEqual({
      message: expect.stringContaining('You exceeded your current quota'),
      type: 'RESOURCE_EXHAUSTED',
      code: '429',
    });
  });

  it('never echoes a key found in a URL inside the message', () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: 'Bad request to https://generativelanguage.googleapis.com/v1beta/models/x:generateContent?key=AIzaSyD-secret&alt=sse',
        status: 'INVALID_ARGUMENT',
      },
    });
    const error = geminiProvider.error(400, body);
    expect(error.message).not.toContain('AIzaSyD-secret');
    expect(error.message).toContain('?key=***&alt=sse');
  });
});
