import { ChannelType } from '@aigw/contracts';
import { cozeProvider } from '../../src/providers/coze/index.js';
import { cozeError } from '../../src/providers/coze/error.js';
import { InvalidChatRequestError } from '../../src/providers/shared/chat-request.js';
import { foldStream } from '../../src/providers/shared/stream-fold.js';
import { UpstreamAnswerError } from '../../src/providers/shared/upstream-error.js';
import { chatOf } from '../../src/providers/types.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, runStream, sampleChatRequest, textOf } from './support.js';

const KEY = 'pat_OYDacMzM3WyOWV3Dtj2bHRMymzxP';
const BOT = '7379462189365198898';
const coze = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: KEY, upstreamModel: BOT, requestedModel: 'coze-bot', channel: channel({ type: ChannelType.Coze }), ...overrides });
const chat = chatOf(cozeProvider);
const sentBody = (body: Record<string, unknown>, ctx = coze()) => JSON.parse(chat.request(body, ctx).body!) as Record<string, unknown>;
/** A stream fixture through the provider's own framing, as the relay reads it. */
const stream = (name: string, ctx = coze({ stream: true })) => runStream(chat.stream(ctx), fixtureText(name), 29, cozeProvider.framing!());

describe('coze provider: chat request', () => {
  it('sends the conversation to the bot as additional messages, always streamed, the token as Bearer', () => {
    const request = chat.request(
      {
        model: 'coze-bot',
        user: 'customer-42',
        messages: [
          { role: 'system', content: 'You answer in one sentence.' },
          { role: 'user', content: 'Where is West Lake?' },
          { role: 'assistant', content: 'In Hangzhou.' },
          { role: 'user', content: 'Which province is that in?' },
        ],
      },
      coze(),
    );
    const expected = fixtureJson('coze/chat-request.json') as Record<string, unknown>;
    expect({ ...request, body: JSON.parse(request.body!) }).toEqual(expected);
    expect(request.warnings).toBeUndefined();
  });

  it('takes the bot from the channel\'s "other" (where migrated channels keep it) and honours base_url, /v3 pasted or not', () => {
    for (const base of ['https://api.coze.com', 'https://api.coze.com/v3/']) {
      const ctx = coze({ channel: channel({ type: ChannelType.Coze, other: ' 7400000000000000001 ', base_url: base }) });
      const request = chat.request({ model: 'coze-bot', messages: [{ role: 'user', content: 'Hi' }] }, ctx);
      expect(request.url).toBe('https://api.coze.com/v3/chat');
      expect(JSON.parse(request.body!)).toMatchObject({ bot_id: '7400000000000000001' });
    }
  });

  it("names the end user by an id of the request alone when the client gives none, and merges the channel's param_override", () => {
    const ctx = coze({ channel: channel({ type: ChannelType.Coze, param_override: { custom_variables: { city: 'Hangzhou' } } }) });
    const first = sentBody({ model: 'coze-bot', messages: [{ role: 'user', content: 'Hi' }] }, ctx);
    const second = sentBody({ model: 'coze-bot', messages: [{ role: 'user', content: 'Hi' }] }, ctx);
    expect(first.user_id).toMatch(/^aigw-[0-9a-f-]{36}$/);
    expect(second.user_id).not.toBe(first.user_id);
    expect(first).toMatchObject({ stream: true, custom_variables: { city: 'Hangzhou' } });
  });

  it('drops what a bot cannot take (its own model sets the parameters), and says so', () => {
    const request = chat.request(sampleChatRequest({ stream: false }), coze());
    expect(JSON.parse(request.body!)).toMatchObject({
      stream: true,
      additional_messages: [
        {
          role: 'user',
          type: 'question',
          content: 'You are a terse assistant.\n\nWhat is in this picture? Then get the weather in Paris.',
          content_type: 'text',
        },
      ],
    });
    expect(request.warnings).toEqual([
      'parameter "tools" is not supported by Coze and was dropped (the bot sets its own)',
      'parameter "tool_choice" is not supported by Coze and was dropped (the bot sets its own)',
      'parameter "temperature" is not supported by Coze and was dropped (the bot sets its own)',
      'parameter "top_p" is not supported by Coze and was dropped (the bot sets its own)',
      'parameter "max_tokens" is not supported by Coze and was dropped (the bot sets its own)',
      'parameter "stop" is not supported by Coze and was dropped (the bot sets its own)',
      'content part "image_url" is not supported by Coze and was dropped',
      'content part "image_url" is not supported by Coze and was dropped',
    ]);
  });

  it('ends the conversation at the last user message, and refuses a request without one', () => {
    const request = chat.request(
      {
        model: 'coze-bot',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Prefilled answer' },
        ],
      },
      coze(),
    );
    expect((JSON.parse(request.body!) as { additional_messages: unknown[] }).additional_messages).toEqual([
      { role: 'user', type: 'question', content: 'Hi', content_type: 'text' },
    ]);
    expect(request.warnings).toEqual(['assistant messages after the last user message are not supported by Coze and were dropped']);
    expect(() => chat.request({ model: 'coze-bot', messages: [{ role: 'system', content: 'Only a system prompt' }] }, coze())).toThrow(InvalidChatRequestError);
  });
});

describe('coze provider: stream', () => {
  it('turns answer deltas into chunks (the role first), ignores the repeated whole answer, verbose and follow-up messages, and ends with the usage', () => {
    const outputs = stream('coze/chat-stream.sse');
    expect(textOf(outputs)).toBe('Hangzhou is the capital of Zhejiang.');
    const chunks = chunksOf(outputs);
    expect(chunks.map((chunk) => chunk.id)).toEqual(Array(chunks.length).fill('chatcmpl-7382159487131697202'));
    expect(chunks[0]!.choices[0].delta).toEqual({ role: 'assistant', content: 'Hangzhou' });
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, 'stop', null]);
    const usageChunk = outputs.at(-1)!;
    expect(usageChunk.usageOnly).toBe(true);
    expect(JSON.parse(usageChunk.data!)).toMatchObject({ choices: [], usage: { prompt_tokens: 614, completion_tokens: 19, total_tokens: 633 } });
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 614, completion_tokens: 19, cached_tokens: 0 });
    expect(outputs.some((output) => output.error)).toBe(false);
  });

  it("passes a reasoning model's thinking as reasoning_content, skips function calls, and keeps an answer that came whole", () => {
    const outputs = stream('coze/reasoning-stream.sse');
    const deltas = chunksOf(outputs).map((chunk) => chunk.choices[0]?.delta);
    expect(deltas.slice(0, 3)).toEqual([
      { role: 'assistant', reasoning_content: 'The user wants a number.' },
      { content: '42' },
      { content: ' (from the workflow)' },
    ]);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 48, completion_tokens: 12, cached_tokens: 0 });
  });

  it('reports a failed chat with the status its code stands for (4013: the model failed, 502)', () => {
    const outputs = stream('coze/stream-failed.sse');
    expect(textOf(outputs)).toBe('Partial');
    expect(outputs.at(-1)!.error).toEqual({ message: 'model error: the model service is busy', type: 'server_error', code: '4013', status: 502 });
    expect(lastUsage(outputs)).toBeNull();
  });

  it('reports an error event of a refused token as an authentication error (401), for auto-ban', () => {
    const outputs = stream('coze/stream-error.sse');
    expect(outputs).toEqual([
      {
        error: {
          message: 'The token you entered does not have permission to access this bot.',
          type: 'authentication_error',
          code: '4101',
          status: 401,
        },
      },
    ]);
  });

  it('reports a bot waiting for a local plugin as a request it cannot serve', () => {
    expect(stream('coze/stream-requires-action.sse')).toEqual([
      { error: expect.objectContaining({ code: 'requires_action', type: 'invalid_request_error', status: 400 }) },
    ]);
  });

  it('reads a {code, msg} refusal answered in place of the stream (status 200) as its error', () => {
    expect(stream('coze/refusal-4100.json')).toEqual([
      { error: { message: 'authentication is invalid. Please check your access token.', type: 'authentication_error', code: '4100', status: 401 } },
    ]);
    expect(stream('coze/refusal-4009.json')).toEqual([
      { error: { message: 'The system is overloaded, please try again later.', type: 'rate_limit_error', code: '4009', status: 429 } },
    ]);
  });
});

describe('coze provider: whole answers, folded from the stream', () => {
  it('has no whole answer of its own: the stream is folded into one chat.completion', () => {
    expect('response' in chat).toBe(false);
    const { body, usage } = foldStream(cozeProvider, fixtureText('coze/chat-stream.sse'), coze());
    expect(usage).toEqual({ prompt_tokens: 614, completion_tokens: 19, cached_tokens: 0 });
    expect(body).toMatchObject({
      id: 'chatcmpl-7382159487131697202',
      object: 'chat.completion',
      model: BOT,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hangzhou is the capital of Zhejiang.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 614, completion_tokens: 19, total_tokens: 633 },
    });
  });

  it.each([
    ['coze/refusal-4100.json', 401, 'authentication_error', '4100'],
    ['coze/refusal-4009.json', 429, 'rate_limit_error', '4009'],
    ['coze/stream-failed.sse', 502, 'server_error', '4013'],
  ])('fails the channel on %s with status %i and type %s', (name, status, type, code) => {
    let thrown: unknown;
    try {
      foldStream(cozeProvider, fixtureText(name), coze());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamAnswerError);
    expect(thrown).toMatchObject({ statusCode: status, type, code });
  });
});

describe('coze provider: error answers', () => {
  it("maps Coze's {code, msg} by its code, and other shapes as every upstream's", () => {
    expect(cozeError(401, fixtureText('coze/refusal-4100.json'))).toEqual({
      message: 'authentication is invalid. Please check your access token.',
      type: 'authentication_error',
      code: '4100',
    });
    expect(cozeError(200, fixtureText('coze/error-400-bot.json'))).toEqual({
      message: 'Bot not found, please check the bot_id.',
      type: 'invalid_request_error',
      code: '4006',
    });
    expect(cozeError(200, '{"code":4011,"msg":"Your Coze token balance is insufficient."}').type).toBe('insufficient_quota');
    expect(cozeError(502, '<html>Bad Gateway</html>')).toEqual({ message: '<html>Bad Gateway</html>', type: 'upstream_error', code: '502' });
  });
});
