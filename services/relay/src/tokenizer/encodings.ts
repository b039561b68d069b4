import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { RankTable } from './rank-table.js';

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Model families tokenized with o200k_base; everything else (also non-OpenAI models) uses cl100k_base (docs/compatibility.md section 3.6). */
const o200kPrefixes = ['gpt-4o', 'chatgpt-4o', 'o1', 'o3', 'o4', 'gpt-4.1', 'gpt-5'];

/** `openai/gpt-4o` (OpenRouter style) is tokenized like `gpt-4o`. */
export function encodingNameForModel(model: string): EncodingName {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return o200kPrefixes.some((prefix) => name.startsWith(prefix)) ? 'o200k_base' : 'cl100k_base';
}

// Building an encoder parses a multi-megabyte rank table, blocking the event loop once (about
// 50 ms for cl100k_base and 100 ms for o200k_base here), and keeps 2.5 and 5 MB. Done on first
// use, once per process, shared by every request: a process only ever holds the encodings its
// traffic needs, and most requests need none (the upstream reports usage; docs/architecture.md 5.3).
const encoders = new Map<EncodingName, Tiktoken>();
const require = createRequire(import.meta.url);

function encoder(name: EncodingName): Tiktoken {
  let built = encoders.get(name);
  if (!built) {
    // Required, not imported: the rank table's source text (up to 5 MB) goes once it is parsed.
    const file = require.resolve(`js-tiktoken/ranks/${name}`);
    built = leanEncoder(require(file) as TiktokenBPE);
    delete require.cache[file];
    encoders.set(name, built);
  }
  return built;
}

/**
 * An encoder with only the table encoding uses (bytes -> rank). js-tiktoken's constructor also
 * builds the decoding table (a Uint8Array per token, three quarters of its heap) and an object of
 * every token on the way: together 218 MB of resident memory that the process never gives back,
 * for 30 MB of tables. So the library builds the encoder from the ranks without their table, and
 * its `rankMap` (which `encode` only ever asks `get`) becomes a RankTable of the same entries.
 * `lean-encoder.test.ts` holds it equal to the library's own on both encodings.
 */
function leanEncoder(ranks: TiktokenBPE): Tiktoken {
  const built = new Tiktoken({ ...ranks, bpe_ranks: '' });
  (built as unknown as { rankMap: Pick<RankTable, 'get'> }).rankMap = new RankTable(ranks.bpe_ranks);
  return built;
}

export function encoderFor(model: string): Tiktoken {
  return encoder(encodingNameForModel(model));
}

/** Builds both encoders now (tests that time their cases). */
export function preloadEncoders(): void {
  encoder('cl100k_base');
  encoder('o200k_base');
}

/**
 * Tokens in plain text. Special-token strings (`<|endoftext|>`) in user text are counted as the
 * ordinary text they are, instead of making js-tiktoken throw.
 *
 * js-tiktoken merges each pre-tokenized piece in time quadratic in the piece's length: one
 * 40,000-letter word took two minutes, 2,000 Chinese characters without punctuation 2.5 s, all
 * of it blocking the process. So a run of letters, of symbols or of whitespace longer than
 * MAX_RUN characters (the only ways a piece grows long: numbers come in threes) is counted in
 * parts of MAX_RUN, which keeps the time linear in the text. Each cut may shift the count by a
 * token; text without such runs is counted exactly.
 */
export function countText(text: string, model: string): number {
  if (text === '') return 0;
  const name = encodingNameForModel(model);
  if (text.length <= MAX_RUN) return countPart(text, name);
  longRuns.lastIndex = 0;
  let run = longRuns.exec(text);
  if (!run) return countPart(text, name);
  let tokens = 0;
  let start = 0;
  while (run) {
    const end = run.index + run[0].length;
    for (let cut = run.index + MAX_RUN; cut < end; cut += MAX_RUN) {
      // Never between the two halves of a surrogate pair (a lone high surrogate before a pair
      // must not push the cut into that pair: its halves would each count as U+FFFD, three bytes).
      if (isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut))) cut += 1;
      tokens += countPart(text.slice(start, cut), name);
      start = cut;
    }
    run = longRuns.exec(text);
  }
  return tokens + countPart(text.slice(start), name);
}

/**
 * At least `countText(text, model)` for every model, without a tokenizer pass: the text's UTF-8
 * bytes. Both encodings are byte-level BPE, and every token stands for at least one byte of the
 * piece it was encoded from; the pieces (the pre-tokenizer's, and countText's parts of long runs)
 * never split a surrogate pair, so their bytes add up to the text's (a lone surrogate is three
 * bytes either way: U+FFFD). Buffer.byteLength is native and makes no copy.
 */
export function textTokenBound(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Longest run of one character class counted as one piece (see countText). */
const MAX_RUN = 32;
/**
 * Runs longer than MAX_RUN of: letters and marks (o200k joins them), of what is neither space,
 * letter nor number (symbols, punctuation, emoji, and marks again, as both encodings' symbol
 * pieces take them), of whitespace.
 */
const longRuns = new RegExp(`[\\p{L}\\p{M}]{${MAX_RUN + 1},}|[^\\s\\p{L}\\p{N}]{${MAX_RUN + 1},}|\\s{${MAX_RUN + 1},}`, 'gu');

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

function countPart(text: string, name: EncodingName): number {
  if (text.length > SHORT_TEXT) return encoder(name).encode(text, [], []).length;
  // js-tiktoken builds its regular expressions on every call, which dominates for short strings
  // (roles, names, one-line prompts, the parts of a long run): remember those, per encoding, in a bounded map.
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
const shortCounts = new Map<EncodingName, Map<string, number>>([
  ['cl100k_base', new Map()],
  ['o200k_base', new Map()],
]);
