import { chatOf } from '../../src/providers/types';
import { ChannelType } from '@aigw/contracts';
import { azureProvider } from '../../src/providers/azure/index.js';
import { customProvider } from '../../src/providers/custom/index.js';
import { MissingBaseUrlError } from '../../src/providers/shared/url.js';
import { providerFor } from '../../src/providers/registry.js';
import { channel, context, fixtureText, runStream, sampleChatRequest, textOf } from './support.js';

const chatUrl = (type: number, baseUrl = '') =>
  chatOf(providerFor(type)).request(sampleChatRequest(), context({ channel: channel({ type, base_url: baseUrl }) })).url;

describe('OpenAI-compatible family', () => {
  it.each([
    [ChannelType.Ollama, 'http://localhost:11434/v1/chat/completions'],
    [ChannelType.OpenRouter, 'https://openrouter.ai/api/v1/chat/completions'],
    [ChannelType.FastGPT, 'https://fastgpt.run/api/openapi/v1/chat/completions'],
    [ChannelType.Moonshot, 'https://api.moonshot.cn/v1/chat/completions'],
    [ChannelType.ZhipuV4, 'https://open.bigmodel.cn/api/paas/v4/chat/completions'],
    [ChannelType.Perplexity, 'https://api.perplexity.ai/chat/completions'],
    [ChannelType.MiniMax, 'https://api.minimax.chat/v1/text/chatcompletion_v2'],
    [ChannelType.DeepSeek, 'https://api.deepseek.com/v1/chat/completions'],
    [ChannelType.VolcEngine, 'https://ark.cn-beijing.volces.com/api/v3/chat/completions'],
    [ChannelType.BaiduV2, 'https://qianfan.baidubce.com/v2/chat/completions'],
    [ChannelType.XAI, 'https://api.x.ai/v1/chat/completions'],
  ])('type %i posts chat to %s by default', (type, url) => {
    expect(chatUrl(type)).toBe(url);
  });

  it('uses the channel base_url over the default, without doubling the version path', () => {
    expect(chatUrl(ChannelType.DeepSeek, 'https://gateway.internal/deepseek/v1/')).toBe('https://gateway.internal/deepseek/v1/chat/completions');
    expect(chatUrl(ChannelType.ZhipuV4, 'https://zhipu.proxy/api/paas/v4')).toBe('https://zhipu.proxy/api/paas/v4/chat/completions');
  });

  it('refuses to build a request for a self-hosted type without base_url', () => {
    expect(() => chatUrl(ChannelType.Xinference)).toThrow(MissingBaseUrlError);
    expect(chatUrl(ChannelType.Xinference, 'http://xinference:9997')).toBe('http://xinference:9997/v1/chat/completions');
  });

  it('adds OpenRouter attribution headers', () => {
    const request = chatOf(providerFor(ChannelType.OpenRouter)).request(sampleChatRequest(), context({ channel: channel({ type: ChannelType.OpenRouter }) }));
    expect(request.headers).toMatchObject({ Authorization: 'Bearer sk-upstream-key', 'HTTP-Referer': expect.any(String), 'X-Title': 'AI Gateway' });
  });

  it('sends no Authorization to a keyless Ollama', () => {
    const request = chatOf(providerFor(ChannelType.Ollama)).request(sampleChatRequest(), context({ key: '', channel: channel({ type: ChannelType.Ollama }) }));
    expect(request.headers.Authorization).toBeUndefined();
  });

  it('strips stream_options for upstreams without stream usage, keeps it for those with', () => {
    const body = sampleChatRequest({ stream: true, stream_options: { include_usage: true } });
    const sent = (type: number) => JSON.parse(chatOf(providerFor(type)).request(body, context({ channel: channel({ type }) })).body!);
    expect(providerFor(ChannelType.Moonshot).streamUsage).toBe(false);
    expect(sent(ChannelType.Moonshot).stream_options).toBeUndefined();
    expect(providerFor(ChannelType.XAI).streamUsage).toBe(true);
    expect(sent(ChannelType.XAI).stream_options).toEqual({ include_usage: true });
  });

  it('lists models under the upstream version path', () => {
    expect(providerFor(ChannelType.ZhipuV4).models!.request({ channel: channel({ type: ChannelType.ZhipuV4 }), key: 'k' }).url).toBe(
      'https://open.bigmodel.cn/api/paas/v4/models',
    );
  });
});

describe('azure provider', () => {
  const azure = (overrides: Parameters<typeof channel>[0] = {}) =>
    context({ upstreamModel: 'gpt-3.5-turbo', channel: channel({ type: ChannelType.Azure, base_url: 'https://contoso.openai.azure.com/', ...overrides }) });

  it('posts to the deployment named after the model without dots, with api-key and the default api-version', () => {
    const body = sampleChatRequest();
    const request = azureProvider.chat.request(body, azure());
    expect(request.url).toBe('https://contoso.openai.azure.com/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-12-01-preview');
    expect(request.headers).toEqual({ 'Content-Type': 'application/json', 'api-key': 'sk-upstream-key' });
    expect(JSON.parse(request.body!)).toEqual({ ...body, model: 'gpt-3.5-turbo' });
  });

  it('takes the api-version from the channel', () => {
    expect(azureProvider.chat.request(sampleChatRequest(), azure({ other: '2025-01-01-preview' })).url).toContain('?api-version=2025-01-01-preview');
  });

  it('passes embeddings to the deployment', () => {
    const request = azureProvider.passthrough!.request('/v1/embeddings', { model: 'text-embedding-3-small', input: 'hi' }, azure({}));
    expect(request.url).toBe('https://contoso.openai.azure.com/openai/deployments/gpt-35-turbo/embeddings?api-version=2024-12-01-preview');
  });

  it('sends the Responses API to the v1 path with the deployment as model, and reads stored responses there', () => {
    const request = azureProvider.passthrough!.request('/v1/responses', { model: 'gpt-4.1', input: 'hi' }, azure({}));
    expect(request.url).toBe('https://contoso.openai.azure.com/openai/v1/responses');
    expect(JSON.parse(request.body!)).toEqual({ model: 'gpt-35-turbo', input: 'hi' });
    const stored = azureProvider.passthrough!.get!('/v1/responses/resp_1', azure({}));
    expect(stored).toMatchObject({
      method: 'GET',
      url: 'https://contoso.openai.azure.com/openai/v1/responses/resp_1',
      headers: { 'api-key': 'sk-upstream-key' },
    });
  });

  it('reads answers and streams as OpenAI does', () => {
    const outputs = runStream(azureProvider.chat.stream(azure()), fixtureText('openai/chat-stream.sse'));
    expect(textOf(outputs)).toBe('A small red pixel. Let me check Paris.{"city":"Paris"}');
  });

  it('needs a base_url', () => {
    expect(() => azureProvider.chat.request(sampleChatRequest(), azure({ base_url: '' }))).toThrow(MissingBaseUrlError);
  });
});

describe('custom provider', () => {
  it('uses base_url verbatim as the full URL, with {model} replaced', () => {
    const ctx = context({
      upstreamModel: 'llama-3.1-70b',
      channel: channel({ type: ChannelType.Custom, base_url: 'https://llm.corp/serving/{model}/v1/chat/completions?tenant=a' }),
    });
    const request = customProvider.chat.request(sampleChatRequest(), ctx);
    expect(request.url).toBe('https://llm.corp/serving/llama-3.1-70b/v1/chat/completions?tenant=a');
    expect(request.headers.Authorization).toBe('Bearer sk-upstream-key');
    expect(JSON.parse(request.body!).model).toBe('llama-3.1-70b');
  });

  it('needs a base_url', () => {
    expect(() => customProvider.chat.request(sampleChatRequest(), context({ channel: channel({ type: ChannelType.Custom }) }))).toThrow(MissingBaseUrlError);
  });
});
