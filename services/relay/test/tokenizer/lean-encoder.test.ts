import { createRequire } from 'node:module';
import fc from 'fast-check';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { encoderFor } from '../../src/tokenizer/encodings.js';

const require = createRequire(import.meta.url);

/** The relay reads the rank table itself (encodings.ts); it must encode exactly as the library's own encoder. */
describe.each([
  ['cl100k_base', 'gpt-4'],
  ['o200k_base', 'gpt-4o'],
])('the lean %s encoder', (encoding, model) => {
  const library = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
  const lean = encoderFor(model);
  const tableOf = (encoder: Tiktoken) => (encoder as unknown as { rankMap: Map<string, number> }).rankMap;

  it('holds the same table of byte sequences to ranks', () => {
    const expected = tableOf(library);
    const actual = tableOf(lean);
    expect(actual.size).toBe(expected.size);
    let differing = 0;
    for (const [bytes, rank] of expected) if (actual.get(bytes) !== rank) differing += 1;
    expect(differing).toBe(0);
  });

  it('finds no rank for bytes that are no token, of any length', () => {
    const actual = tableOf(lean);
    const expected = tableOf(library);
    const unknown = ['', '255,255,255,255', Array.from({ length: 300 }, () => 97).join(','), '32,116,104,101,32,116,104,101,32,116,104,101'];
    for (const key of unknown) expect([key, actual.get(key)]).toEqual([key, expected.get(key)]);
    // A long key first (the lookup's buffer grows), then a token: still found.
    expect(actual.get('72,101')).toBe(expected.get('72,101'));
  });

  it('encodes any text as the library does', () => {
    const corpus = ['Hello, world!', '你好，世界。こんにちは', 'function f(x) {\n  return x ** 2;\n}\n', '🙂👍🏽 ÀÉÎõü', '  \t\n  spaced   out  '];
    for (const text of corpus) expect(lean.encode(text)).toEqual(library.encode(text));
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        expect(lean.encode(text, [], [])).toEqual(library.encode(text, [], []));
      }),
      { numRuns: 300 },
    );
  });
});
