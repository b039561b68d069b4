import { CompletionCounter, countText } from '../../src/tokenizer/index.js';

/** A deterministic pseudo-random generator, so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Splits text into stream-like deltas of 1 to 12 characters. */
function deltas(text: string, seed: number): string[] {
  const next = random(seed);
  const pieces: string[] = [];
  for (let index = 0; index < text.length;) {
    const length = 1 + Math.floor(next() * 12);
    pieces.push(text.slice(index, index + length));
    index += length;
  }
  return pieces;
}

function streamed(text: string, model: string, seed = 1): CompletionCounter {
  const counter = new CompletionCounter(model);
  for (const piece of deltas(text, seed)) counter.add(piece);
  return counter;
}

const english = 'The quick brown fox jumps over the lazy dog. It\'s 3.14159 o\'clock —  "quoted",  double  spaces,\ttabs\nand new\n\nlines too! ';
const code = 'function add(a, b) {\n  return a + b; // sum\n}\n\nconst xs = [1, 2, 3].map((x) => x * 2);\n    indented   = "value";\r\n';

describe('CompletionCounter', () => {
  it.each(['gpt-3.5-turbo', 'gpt-4o'])('counts English prose and code exactly as one piece of text (%s)', (model) => {
    for (const [text, seed] of [
      [english.repeat(150), 1],
      [code.repeat(150), 2],
      [(english + code).repeat(100), 3],
    ] as const) {
      expect(streamed(text, model, seed).total()).toBe(countText(text, model));
    }
  });

  it('keeps only a small tail of a long stream', () => {
    const counter = new CompletionCounter('gpt-4o');
    let longest = 0;
    for (const piece of deltas(english.repeat(1000), 4)) {
      counter.add(piece);
      longest = Math.max(longest, counter.bufferedLength);
    }
    expect(longest).toBeLessThanOrEqual(1024 + 12);
  });

  it('stays within 0.1% for long text without spaces (CJK), where it cuts where it must', () => {
    const cjk = '人工智能正在改变世界，我们需要负责任地使用它。机器学习模型从数据中学习规律'.repeat(400);
    for (const model of ['gpt-3.5-turbo', 'gpt-4o']) {
      const counter = new CompletionCounter(model);
      let longest = 0;
      for (const piece of deltas(cjk, 5)) {
        counter.add(piece);
        longest = Math.max(longest, counter.bufferedLength);
      }
      const exact = countText(cjk, model);
      expect(Math.abs(counter.total() - exact)).toBeLessThanOrEqual(Math.ceil(exact * 0.001));
      expect(longest).toBeLessThanOrEqual(4096 + 12);
    }
  });

  it('counts nothing for nothing and can be read at any time', () => {
    const counter = new CompletionCounter('gpt-4');
    expect(counter.total()).toBe(0);
    counter.add('hello');
    counter.add(' world');
    expect(counter.total()).toBe(2);
    counter.add('');
    expect(counter.total()).toBe(2);
  });
});
