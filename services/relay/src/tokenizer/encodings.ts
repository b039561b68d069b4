import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Model families tokenized with o200k_base; everything else (also non-OpenAI models) uses cl100k_base (reference 4.8). */
const o200kPrefixes = ['gpt-4o', 'chatgpt-4o', 'o1', 'o3', 'o4', 'gpt-4.1', 'gpt-5'];

/** `openai/gpt-4o` (OpenRouter style) is tokenized like `gpt-4o`. */
export function encodingNameForModel(model: string): EncodingName {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return o200kPrefixes.some((prefix) => name.startsWith(prefix)) ? 'o200k_base' : 'cl100k_base';
}

// Building an encoder parses a multi-megabyte rank table, blocking the event loop: measured here
// about 0.6 s for cl100k_base and 1.1 s for o200k_base, together about 110 MB of heap. Done on
// first use, once per process, and shared by every request; `preloadEncoders` moves it to boot.
const encoders = new Map<EncodingName, Tiktoken>();

function encoder(name: EncodingName): Tiktoken {
  let built = encoders.get(name);
  if (!built) {
    built = new Tiktoken(name === 'o200k_base' ? o200kBase : cl100kBase);
    encoders.set(name, built);
  }
  return built;
}

export function encoderFor(model: string): Tiktoken {
  return encoder(encodingNameForModel(model));
}

/** Builds both encoders now, so the first request that counts tokens does not stall the process. */
export function preloadEncoders(): void {
  encoder('cl100k_base');
  encoder('o200k_base');
}

/**
 * Tokens in plain text. Special-token strings (`<|endoftext|>`) in user text are counted as the
 * ordinary text they are, instead of making js-tiktoken throw.
 */
export function countText(text: string, model: string): number {
  if (text === '') return 0;
  if (text.length > SHORT_TEXT) return encoderFor(model).encode(text, [], []).length;
  // js-tiktoken builds its regular expressions on every call, which dominates for short strings
  // (roles, names, one-line prompts): remember those, per encoding, in a bounded map.
  const name = encodingNameForModel(model);
  const memo = shortCounts.get(name)!;
  let count = memo.get(text);
  if (count === undefined) {
    count = encoder(name).encode(text, [], []).length;
    if (memo.size >= SHORT_MEMO_LIMIT) memo.clear();
    memo.set(text, count);
  }
  return count;
}

const SHORT_TEXT = 64;
const SHORT_MEMO_LIMIT = 50_000;
const shortCounts = new Map<EncodingName, Map<string, number>>([['cl100k_base', new Map()], ['o200k_base', new Map()]]);
