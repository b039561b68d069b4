import { ChannelType, channelTypeValues } from '@aigw/contracts';
import { isSupportedChannelType, providerFor, providers, UnsupportedChannelTypeError } from '../../src/providers/registry.js';

describe('provider registry', () => {
  it('has an entry for every channel type', () => {
    expect(
      Object.keys(providers)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...channelTypeValues].sort((a, b) => a - b));
  });

  it.each([1, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14, 19, 20, 22, 24, 25, 26, 27, 31, 35, 40, 42, 43, 44, 45, 46, 47, 48])('serves channel type %i', (type) => {
    expect(isSupportedChannelType(type)).toBe(true);
    expect(providerFor(type).chat.request).toEqual(expect.any(Function));
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
    expect(() => providerFor(ChannelType.Baidu)).toThrow('channel type 15 (Baidu) is not supported by the chat relay');
  });

  it('throws the same error for a number that is no channel type', () => {
    expect(isSupportedChannelType(999)).toBe(false);
    expect(() => providerFor(999)).toThrow(new UnsupportedChannelTypeError(999));
    expect(() => providerFor(999)).toThrow('channel type 999 is unknown');
    expect(() => providerFor(30)).toThrow(UnsupportedChannelTypeError);
  });
});
