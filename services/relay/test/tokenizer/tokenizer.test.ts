import { countChatPrompt, countText, encodingNameForModel, imageSizeFromDataUrl, imageTokens, preloadEncoders } from '../../src/tokenizer/index.js';
import { encoderFor } from '../../src/tokenizer/encodings.js';

const PIXEL_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A PNG data URL with the given size (only the header: the parser reads nothing else). */
function pngOfSize(width: number, height: number): string {
  const head = Buffer.alloc(24);
  head.writeUInt32BE(0x89504e47, 0);
  head.writeUInt32BE(0x0d0a1a0a, 4);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'latin1');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return `data:image/png;base64,${head.toString('base64')}AAAA`;
}

describe('encodingNameForModel', () => {
  it.each([
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['o1-mini', 'o200k_base'],
    ['o3', 'o200k_base'],
    ['o4-mini', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['openai/gpt-4o', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['claude-sonnet-4-20250514', 'cl100k_base'],
    ['gemini-2.5-flash', 'cl100k_base'],
  ])('%s uses %s', (model, encoding) => {
    expect(encodingNameForModel(model)).toBe(encoding);
  });
});

describe('countText', () => {
  it('counts known strings', () => {
    preloadEncoders();
    expect(countText('hello world', 'gpt-3.5-turbo')).toBe(2);
    expect(countText('hello world', 'gpt-4o')).toBe(2);
    expect(countText('', 'gpt-4')).toBe(0);
    // "tiktoken is great!" is 6 tokens in cl100k_base (OpenAI's cookbook example).
    expect(countText('tiktoken is great!', 'gpt-4')).toBe(6);
  });

  it('differs between encodings where the vocabularies differ', () => {
    const text = '人工智能正在改变世界，我们需要负责任地使用它。';
    expect(countText(text, 'gpt-4o')).toBeLessThan(countText(text, 'gpt-4'));
  });

  it('counts special-token strings in user text as ordinary text instead of throwing', () => {
    expect(countText('<|endoftext|>', 'gpt-4')).toBeGreaterThan(1);
  });

  // js-tiktoken's merge is quadratic in a piece's length: unbounded, these took hours.
  it('counts long runs without spaces in linear time, close to the exact figure', () => {
    const letters = 'a'.repeat(200_000);
    const symbols = '!'.repeat(200_000);
    // Random letters and CJK without punctuation: no repeated part for the memo to help with.
    let seed = 7;
    const random = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[(seed = (seed * 48271) % 2147483647) % alphabet.length]).join('');
    const latin = random('abcdefghijklmnopqrstuvwxyz', 100_000);
    const cjk = random(
      '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都',
      20_000,
    );
    const emoji = '😀'.repeat(10_001);
    const combining = `e${'\u0301'.repeat(100_000)}`;
    const spaces = ' '.repeat(100_000);
    for (const model of ['gpt-4', 'gpt-4o']) {
      for (const text of [letters, symbols, latin, cjk, emoji, combining, spaces]) {
        const tokens = countText(text, model);
        expect(tokens).toBeGreaterThan(0);
        expect(tokens).toBeLessThanOrEqual(new TextEncoder().encode(text).length);
      }
    }
    // A run just over the bound is within a token or two of the exact count.
    const word = 'pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(2);
    expect(Math.abs(countText(word, 'gpt-4') - encoderFor('gpt-4').encode(word).length)).toBeLessThanOrEqual(2);
  });

  it('never cuts a surrogate pair', () => {
    // The run starts at '?': its 32nd code unit is the first half of the 16th emoji, so the cut moves one on.
    const encode = jest.spyOn(encoderFor('gpt-4'), 'encode');
    try {
      countText(`?${'🙂'.repeat(40)}`, 'gpt-4');
      const parts = encode.mock.calls.map(([text]) => text);
      expect(parts).toEqual([`?${'🙂'.repeat(16)}`, '🙂'.repeat(16), '🙂'.repeat(8)]);
    } finally {
      encode.mockRestore();
    }
  });
});

describe('imageTokens', () => {
  it.each([
    ['low detail, any size', 'low', { width: 4096, height: 4096 }, 85],
    ['unknown size', 'high', null, 255],
    ['512×512: one tile', 'high', { width: 512, height: 512 }, 255],
    ['1024×1024: scaled to 768, four tiles', 'auto', { width: 1024, height: 1024 }, 765],
    ['2048×4096: fit in 2048, short side 768, six tiles', undefined, { width: 2048, height: 4096 }, 1105],
  ])('%s', (_what, detail, size, tokens) => {
    expect(imageTokens(detail, size)).toBe(tokens);
  });

  it('reads the size of PNG and GIF data URLs only', () => {
    expect(imageSizeFromDataUrl(PIXEL_PNG)).toEqual({ width: 1, height: 1 });
    expect(imageSizeFromDataUrl(pngOfSize(1024, 768))).toEqual({ width: 1024, height: 768 });
    const gif = Buffer.from('GIF89a\x40\x01\xf0\x00\x00\x00', 'latin1').toString('base64');
    expect(imageSizeFromDataUrl(`data:image/gif;base64,${gif}`)).toEqual({ width: 320, height: 240 });
    expect(imageSizeFromDataUrl('data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD')).toBeNull();
    expect(imageSizeFromDataUrl('https://example.com/cat.png')).toBeNull();
  });
});

describe('countChatPrompt', () => {
  const model = 'gpt-3.5-turbo';

  it('counts 3 per message + role + content, +1 + name, and 3 for reply priming', () => {
    const messages = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', name: 'alice', content: 'hello world' },
    ];
    const expected =
      3 + (3 + countText('system', model) + countText('You are helpful.', model)) + (3 + countText('user', model) + 2 + 1 + countText('alice', model));
    expect(countChatPrompt(messages, model)).toBe(expected);
  });

  it('matches the figure OpenAI documents for its cookbook example conversation (gpt-3.5-turbo-0613: 129)', () => {
    const messages = [
      { role: 'system', content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.' },
      { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
      { role: 'system', name: 'example_assistant', content: 'Things working well together will increase revenue.' },
      { role: 'system', name: 'example_user', content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage." },
      { role: 'system', name: 'example_assistant', content: "Let's talk later when we're less busy about how to do better." },
      { role: 'user', content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
    ];
    expect(countChatPrompt(messages, 'gpt-3.5-turbo-0613')).toBe(129);
  });

  it('counts text parts, images by detail and size, audio and file parts', () => {
    const content = [
      { type: 'text', text: 'hello world' },
      { type: 'image_url', image_url: { url: PIXEL_PNG, detail: 'low' } },
      { type: 'image_url', image_url: { url: pngOfSize(1024, 1024) } },
      { type: 'image_url', image_url: 'https://example.com/cat.jpg' },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      { type: 'file', file: { file_id: 'file-1' } },
    ];
    const base = 3 + 3 + countText('user', model);
    expect(countChatPrompt([{ role: 'user', content }], model)).toBe(base + 2 + 85 + 765 + 255 + 100 + 5000);
  });

  it('adds 8 and each tool name, description and parameters when tools are given', () => {
    const messages = [{ role: 'user', content: 'hello world' }];
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const tools = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters } },
      { type: 'function', function: { name: 'get_time' } },
    ];
    const toolTokens =
      8 +
      countText('get_weather', model) +
      countText('Weather for a city', model) +
      countText(JSON.stringify(parameters), model) +
      countText('get_time', model);
    expect(countChatPrompt(messages, model, tools)).toBe(countChatPrompt(messages, model) + toolTokens);
    expect(countChatPrompt(messages, model, [])).toBe(countChatPrompt(messages, model));
  });

  it('counts assistant tool calls and never fails on odd input', () => {
    const call = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    };
    expect(countChatPrompt([call], model)).toBe(3 + 3 + countText('assistant', model) + countText('get_weather', model) + countText('{"city":"Paris"}', model));
    expect(countChatPrompt('not an array', model)).toBe(3);
    expect(countChatPrompt([{ content: 'no role' }], model)).toBe(3 + countText('{"content":"no role"}', model));
  });

  it('counts a structure of any depth without overflowing the stack, as its JSON text', () => {
    // Built bottom-up: 100,000 levels (no recursion here either).
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = level % 2 ? { a: deep } : [deep, 'x'];
    const tools = [{ type: 'function', function: { name: 'f', parameters: { deep } } }];
    expect(countChatPrompt([{ role: 'user', content: 'hi' }], model, tools)).toBeGreaterThan(100_000);
    expect(countChatPrompt([{ role: 'user', content: [deep] }], model)).toBeGreaterThan(100_000);
    expect(countChatPrompt([deep], model, [deep])).toBeGreaterThan(100_000);
  });

  it('counts tool parameters and odd messages as exactly their JSON text', () => {
    const parameters = { type: 'object', properties: { a: [1, 'two', null, true, { b: -1.5e-7 }], 'quote"d': 'ünï\u2028', empty: {}, list: [] } };
    const tools = [{ type: 'function', function: { name: 'f', parameters } }];
    expect(countChatPrompt([], model, tools)).toBe(3 + 8 + countText('f', model) + countText(JSON.stringify(parameters), model));
    const odd = { role: 7, content: [undefined, 'x'], skipped: undefined, n: Number.NaN };
    expect(countChatPrompt([odd], model)).toBe(3 + countText(JSON.stringify(odd), model));
  });
});
