import { ChannelType, channelTypeValues } from '@aigw/contracts';
import { isSupportedChannelType, providerFor, providers, servesOperation, UnsupportedChannelTypeError } from '../../src/providers/registry.js';
import { chatOf } from '../../src/providers/types.js';
import { channel, context } from './support';

describe('provider registry', () => {
  it('has an entry for every channel type', () => {
    expect(
      Object.keys(providers)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...channelTypeValues].sort((a, b) => a - b));
  });

  it.each([
    1, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 23, 24, 25, 26, 27, 31, 33, 34, 35, 37, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 53,
  ])('serves chat on channel type %i', (type) => {
    expect(isSupportedChannelType(type)).toBe(true);
    expect(typeof chatOf(providerFor(type)).request).toBe('function');
  });

  it('serves Jina (38) without chat: embeddings and rerank only', () => {
    expect(isSupportedChannelType(ChannelType.Jina)).toBe(true);
    expect(providerFor(ChannelType.Jina).operations).toEqual(['embeddings', 'rerank']);
    expect(() => chatOf(providerFor(ChannelType.Jina))).toThrow('provider jina serves no chat');
  });

  it('serves Codex (57) with the Responses API only, and nothing on the video and image task types', () => {
    expect(providerFor(ChannelType.Codex).operations).toEqual(['responses']);
    expect(servesOperation(ChannelType.Codex, 'responses')).toBe(true);
    expect(servesOperation(ChannelType.Codex, 'chat')).toBe(false);
    for (const type of [ChannelType.Kling, ChannelType.Jimeng, ChannelType.Vidu, ChannelType.DoubaoVideo, ChannelType.Sora, ChannelType.Replicate]) {
      expect(isSupportedChannelType(type)).toBe(false);
      expect(servesOperation(type, 'chat')).toBe(false);
    }
    expect(() => providerFor(ChannelType.Kling)).toThrow('channel type 50 (Kling) is not supported by the chat relay');
  });

  it('names native protocols by their own provider', () => {
    expect(providerFor(ChannelType.OpenAI).id).toBe('openai');
    expect(providerFor(ChannelType.Azure).id).toBe('azure');
    expect(providerFor(ChannelType.Custom).id).toBe('custom');
    expect(providerFor(ChannelType.Anthropic).id).toBe('anthropic');
    expect(providerFor(ChannelType.Gemini).id).toBe('gemini');
  });

  it('throws a typed error naming an unsupported channel type', () => {
    expect(isSupportedChannelType(ChannelType.Midjourney)).toBe(false);
    expect(() => providerFor(ChannelType.Midjourney)).toThrow(UnsupportedChannelTypeError);
    expect(() => providerFor(ChannelType.Midjourney)).toThrow('channel type 2 (Midjourney) is not supported by the chat relay');
  });

  it('throws the same error for a number that is no channel type', () => {
    expect(isSupportedChannelType(999)).toBe(false);
    expect(() => providerFor(999)).toThrow(new UnsupportedChannelTypeError(999));
    expect(() => providerFor(999)).toThrow('channel type 999 is unknown');
    expect(() => providerFor(30)).toThrow(UnsupportedChannelTypeError);
  });

  it('lists what each provider serves, and each listed operation has its adapter', () => {
    for (const [type, provider] of Object.entries(providers)) {
      if (!provider) {
        expect(servesOperation(Number(type), 'chat')).toBe(false);
        continue;
      }
      // A chat adapter exactly when chat is listed.
      expect(provider.operations.includes('chat')).toBe(provider.chat !== undefined);
      // Every operation but chat goes through the passthrough (an OpenAI-protocol upstream, or one converted by `passthrough.answer`).
      if (provider.operations.some((operation) => operation !== 'chat')) expect(provider.passthrough).toBeDefined();
      for (const operation of provider.operations) expect(servesOperation(Number(type), operation)).toBe(true);
    }
    expect(servesOperation(ChannelType.Anthropic, 'embeddings')).toBe(false);
    expect(servesOperation(ChannelType.Gemini, 'completions')).toBe(false);
    expect(servesOperation(ChannelType.OpenAI, 'moderations')).toBe(true);
    expect(servesOperation(999, 'chat')).toBe(false);
  });

  it('gives every provider that serves audio transcriptions a form passthrough, and lists the audio APIs where the upstream has them', () => {
    for (const provider of Object.values(providers)) {
      for (const upload of ['audio-transcriptions', 'audio-translations'] as const) {
        if (provider?.operations.includes(upload)) expect(typeof provider.passthrough?.form).toBe('function');
      }
    }
    for (const type of [ChannelType.OpenAI, ChannelType.Azure, ChannelType.SiliconFlow, ChannelType.Xinference]) {
      expect(servesOperation(type, 'audio-speech')).toBe(true);
      expect(servesOperation(type, 'audio-transcriptions')).toBe(true);
    }
    for (const type of [ChannelType.Anthropic, ChannelType.Gemini, ChannelType.DeepSeek, ChannelType.OpenRouter]) {
      expect(servesOperation(type, 'audio-speech')).toBe(false);
      expect(servesOperation(type, 'audio-transcriptions')).toBe(false);
    }
  });

  it("gives every provider that serves image edits a form passthrough, and lists OpenAI's image APIs where the upstream has them", () => {
    for (const provider of Object.values(providers)) {
      if (provider?.operations.includes('images')) expect(typeof provider.passthrough?.request).toBe('function');
      for (const upload of ['image-edits', 'image-variations'] as const) {
        if (provider?.operations.includes(upload)) expect(typeof provider.passthrough?.form).toBe('function');
      }
    }
    for (const type of [ChannelType.OpenAI, ChannelType.Azure]) {
      expect(servesOperation(type, 'images')).toBe(true);
      expect(servesOperation(type, 'image-edits')).toBe(true);
    }
    // Generations only.
    for (const type of [ChannelType.SiliconFlow, ChannelType.XAI, ChannelType.ZhipuV4]) {
      expect(servesOperation(type, 'images')).toBe(true);
      expect(servesOperation(type, 'image-edits')).toBe(false);
    }
    for (const type of [ChannelType.Anthropic, ChannelType.Gemini, ChannelType.DeepSeek, ChannelType.OpenRouter, ChannelType.Custom]) {
      expect(servesOperation(type, 'images')).toBe(false);
      expect(servesOperation(type, 'image-edits')).toBe(false);
    }
  });

  it('gives every provider that serves realtime a realtime.connect: OpenAI and Azure, with the key in a header', () => {
    for (const provider of Object.values(providers)) {
      if (provider?.operations.includes('realtime')) expect(typeof provider.realtime?.connect).toBe('function');
    }
    for (const type of [ChannelType.OpenAI, ChannelType.Azure]) expect(servesOperation(type, 'realtime')).toBe(true);
    for (const type of [ChannelType.Anthropic, ChannelType.Gemini, ChannelType.DeepSeek, ChannelType.Custom, ChannelType.OpenRouter]) {
      expect(servesOperation(type, 'realtime')).toBe(false);
    }

    const openAi = providerFor(ChannelType.OpenAI).realtime!;
    expect(openAi.connect(context({ upstreamModel: 'gpt-4o-realtime-preview' }))).toEqual({
      url: 'wss://api.openai.com/v1/realtime?model=gpt-4o-realtime-preview',
      headers: { Authorization: 'Bearer sk-upstream-key' },
    });
    // http -> ws, a base ending in /v1 does not get it twice, the beta interface only when the client asked for it.
    expect(
      openAi.connect(
        context({ channel: channel({ base_url: 'http://10.0.0.5:8080/v1/' }), upstreamModel: 'rt model', forwarded: { 'openai-beta': 'realtime=v1' } }),
      ),
    ).toEqual({ url: 'ws://10.0.0.5:8080/v1/realtime?model=rt%20model', headers: { Authorization: 'Bearer sk-upstream-key', 'OpenAI-Beta': 'realtime=v1' } });

    const azure = providerFor(ChannelType.Azure).realtime!;
    const azureChannel = (other: string) => channel({ type: ChannelType.Azure, base_url: 'https://example.openai.azure.com', other });
    expect(azure.connect(context({ channel: azureChannel(''), upstreamModel: 'gpt-4o-realtime-preview' }))).toEqual({
      url: 'wss://example.openai.azure.com/openai/realtime?api-version=2024-10-01-preview&deployment=gpt-4o-realtime-preview',
      headers: { 'api-key': 'sk-upstream-key' },
    });
    expect(azure.connect(context({ channel: azureChannel('2025-04-01-preview'), upstreamModel: 'gpt-4.1-rt' })).url).toBe(
      'wss://example.openai.azure.com/openai/realtime?api-version=2025-04-01-preview&deployment=gpt-41-rt',
    );
  });
});
