import { ChannelType } from '@aigw/contracts';
import { cloudflareProvider } from '../../src/providers/cloudflare/index.js';
import { MissingAccountIdError } from '../../src/providers/cloudflare/api.js';
import { channel, context, fixtureJson, fixtureText, lastUsage, runStream, textOf } from './support.js';

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const cloudflare = (overrides: Parameters<typeof context>[0] = {}) =>
  context({
    upstreamModel: '@cf/meta/llama-3.1-8b-instruct',
    requestedModel: 'llama-3.1-8b',
    channel: channel({ type: ChannelType.Cloudflare, other: ACCOUNT }),
    ...overrides,
  });
const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer sk-upstream-key' };
const chat = { model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'Make some robot noises' }] };

describe('cloudflare provider: requests', () => {
  it("sends chat to the account's OpenAI-compatible endpoint, the client's body but for the model", () => {
    const request = cloudflareProvider.chat.request({ ...chat, temperature: 0.3, stream: true, stream_options: { include_usage: true } }, cloudflare());
    expect(request).toEqual({
      method: 'POST',
      url: `https://api.cloudflare.com/client/v4/accounts/${ACCOUNT}/ai/v1/chat/completions`,
      headers,
      body: JSON.stringify({ ...chat, temperature: 0.3, stream: true, stream_options: { include_usage: true }, model: '@cf/meta/llama-3.1-8b-instruct' }),
    });
    // The relay asks Cloudflare streams for their usage (it honours stream_options.include_usage).
    expect(cloudflareProvider.streamUsage).toBe(true);
  });

  it('sends embeddings to the same account, and takes base_url as the endpoint override', () => {
    const ctx = cloudflare({
      upstreamModel: '@cf/baai/bge-large-en-v1.5',
      channel: channel({ type: 39, other: ` ${ACCOUNT} `, base_url: 'https://cf.proxy/' }),
    });
    const request = cloudflareProvider.passthrough!.request('/v1/embeddings', { model: 'bge', input: 'I love matcha', encoding_format: 'float' }, ctx);
    expect(request).toEqual({
      method: 'POST',
      url: `https://cf.proxy/client/v4/accounts/${ACCOUNT}/ai/v1/embeddings`,
      headers,
      body: JSON.stringify({ model: '@cf/baai/bge-large-en-v1.5', input: 'I love matcha', encoding_format: 'float' }),
    });
    expect(cloudflareProvider.operations).toEqual(['chat', 'embeddings']);
  });

  it('refuses to build a call without the account id: a configuration error naming the field', () => {
    const ctx = cloudflare({ channel: channel({ id: 12, type: 39, other: '  ' }) });
    expect(() => cloudflareProvider.chat.request(chat, ctx)).toThrow(MissingAccountIdError);
    expect(() => cloudflareProvider.chat.request(chat, ctx)).toThrow(
      'channel 12 (Cloudflare Workers AI) has no account id: set it in the channel\'s "other" field',
    );
    expect(() => cloudflareProvider.passthrough!.request('/v1/embeddings', { input: 'x' }, ctx)).toThrow(MissingAccountIdError);
  });

  it('encodes the account id as one path segment', () => {
    expect(cloudflareProvider.chat.request(chat, cloudflare({ channel: channel({ type: 39, other: 'a/../b' }) })).url).toBe(
      'https://api.cloudflare.com/client/v4/accounts/a%2F..%2Fb/ai/v1/chat/completions',
    );
  });
});

describe('cloudflare provider: answers', () => {
  it('reads the usage of an answer, which goes out as Cloudflare wrote it', () => {
    const json = fixtureJson('cloudflare/chat-response.json');
    const result = cloudflareProvider.chat.response(json, cloudflare());
    expect(result.body).toEqual(json);
    expect(result.usage).toEqual({ prompt_tokens: 14, completion_tokens: 6, cached_tokens: 0 });
    expect(cloudflareProvider.passthrough!.usage(fixtureJson('cloudflare/embeddings-response.json'))).toEqual({
      prompt_tokens: 5,
      completion_tokens: 0,
      cached_tokens: 0,
    });
  });

  it('passes the stream through chunk for chunk, reading text and the usage-only chunk', () => {
    const sse = fixtureText('cloudflare/chat-stream.sse');
    const outputs = runStream(cloudflareProvider.chat.stream(cloudflare({ stream: true })), sse);
    const upstreamChunks = sse
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => frame.slice('data: '.length));
    expect(outputs.map((output) => output.data)).toEqual(upstreamChunks);
    expect(textOf(outputs)).toBe('Beep boop');
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 14, completion_tokens: 2, cached_tokens: 0 });
    expect(outputs.at(-1)!.usageOnly).toBe(true);
  });

  it("normalises Cloudflare's error envelope, and OpenAI-shaped errors", () => {
    expect(cloudflareProvider.error(401, fixtureText('cloudflare/error-401.json'))).toEqual({
      message: 'Authentication error',
      type: 'upstream_error',
      code: '10000',
    });
    expect(
      cloudflareProvider.error(400, '{"success":false,"errors":[{"code":5006,"message":"Error: oneOf at \'/\' not met"},{"code":5007,"message":"Second"}]}'),
    ).toEqual({ message: "Error: oneOf at '/' not met; Second", type: 'upstream_error', code: '5006' });
    expect(cloudflareProvider.error(429, '{"error":{"message":"Capacity temporarily exceeded","type":"rate_limit","code":3040}}')).toEqual({
      message: 'Capacity temporarily exceeded',
      type: 'rate_limit',
      code: '3040',
    });
  });
});
