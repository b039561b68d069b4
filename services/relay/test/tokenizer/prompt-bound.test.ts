// The hold's prompt bound (issue 16 item 2, docs/architecture.md section 5 step 3): every
// operation's `boundPrompt` is at least its `estimatePrompt`, the tokenizer's count, for any body.
// Thousands of random bodies per operation shape; a failure prints the case's seed, which
// `bodyFor(operation, seed)` turns back into the same body.
import { seededRandom } from '@aigw/platform/testing';
import { chatMessageSchema, chatToolSchema } from '../../src/providers/shared/chat-request.js';
import { chatPromptBound, countChatPrompt, countText, preloadEncoders, textTokenBound } from '../../src/tokenizer/index.js';
import { isChatMessage, isChatTool } from '../../src/tokenizer/chat-prompt.js';
import { encoderFor } from '../../src/tokenizer/encodings.js';
import { jsonText, jsonTextBytes } from '../../src/tokenizer/json-text.js';
import {
  chatCompletionsOperation,
  completionsOperation,
  embeddingsOperation,
  imageGenerationsOperation,
  messagesOperation,
  moderationsOperation,
  rerankOperation,
  responsesOperation,
  speechOperation,
  transcriptionsOperation,
  type OperationDefinition,
} from '../../src/operations/index.js';
import { geminiBatchEmbedOperation, geminiEmbedOperation, geminiGenerateOperation } from '../../src/operations/gemini.js';

jest.setTimeout(120_000);

/** Both encodings: o200k_base and cl100k_base. */
const MODELS = ['gpt-4o', 'gpt-4'];

/** mulberry32: a tiny seeded generator, so every case reproduces from its seed. */
function generator(seed: number) {
  const next = seededRandom(seed);
  const int = (below: number) => Math.floor(next() * below);
  const chance = (probability: number) => next() < probability;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const range = (from: number, to: number) => String.fromCodePoint(from + int(to - from + 1));
  const repeat = (make: () => string, count: number) => Array.from({ length: count }, make).join('');

  /** Mostly short, now and then long: long runs are where the counter cuts pieces. */
  const length = () => (chance(0.1) ? 40 + int(400) : int(24));

  /** One stretch of text of a kind that tokenizes differently (or breaks naive byte counting). */
  const segment = (): string => {
    switch (int(16)) {
      case 0:
        return repeat(() => pick(['the', 'quick', 'fox', 'Hello', "it's", 'don’t', 'naïve', 'über', 'token', 'JSON']) + ' ', 1 + int(12));
      case 1:
        return repeat(() => range(0x4e00, 0x9fff), length()); // CJK, no spaces
      case 2:
        return repeat(() => range(0x1f300, 0x1faff), 1 + int(20)); // emoji: surrogate pairs
      case 3:
        return repeat(() => pick(['👩‍👩‍👧', '🏳️‍🌈', '👍🏽', '🇫🇷']), 1 + int(6)); // ZWJ, modifiers, flags
      case 4:
        return pick(['\ud800', '\udfff', '\udbff', '\udc00']); // a lone surrogate
      case 5:
        return repeat(() => pick([' ', '\t', '\n', '\r\n', '\u00a0', '\u3000']), length()); // whitespace runs
      case 6:
        return repeat(() => String(int(10)), length()); // digit runs
      case 7:
        return pick(['a', 'Z', 'é', 'ж']).repeat(length() + 30); // one letter, past the counter's run limit
      case 8:
        return repeat(() => pick(['!', '?', '.', '-', '=', '*', '#', '@', '…', '—']), length()); // symbol runs
      case 9:
        return repeat(() => range(0, 0x1f), 1 + int(6)) + pick(['"', '\\', '\\"', '\u2028']); // what JSON escapes
      case 10:
        return pick(['<|endoftext|>', '<|im_start|>', '<|fim_prefix|>', '<|endofprompt|>']);
      case 11:
        return `e${'\u0301'.repeat(1 + int(40))}`; // combining marks
      case 12:
        return repeat(() => range(0x0400, 0x06ff), length()); // Cyrillic, Armenian, Hebrew, Arabic
      case 13:
        return repeat(() => String.fromCharCode(int(0x10000)), 1 + int(12)); // any code unit, lone surrogates included
      case 14:
        // A lone high surrogate right before a pair, deep in a symbol run: where a cut could split the pair.
        return `${'!'.repeat(int(40))}\ud800${'😀'.repeat(1 + int(30))}`;
      default:
        return repeat(() => range(0x20, 0x7e), length()); // printable ASCII
    }
  };

  const text = (segments = 1 + int(4)): string => (chance(0.05) ? '' : repeat(segment, segments));

  /** A PNG or GIF data URL of a random size (header only: all the size reader looks at), or another image reference. */
  const imageUrl = (): string => {
    switch (int(5)) {
      case 0: {
        const head = Buffer.alloc(24);
        head.writeUInt32BE(0x89504e47, 0);
        head.writeUInt32BE(0x0d0a1a0a, 4);
        head.writeUInt32BE(13, 8);
        head.write('IHDR', 12, 'latin1');
        head.writeUInt32BE(int(10_000), 16);
        head.writeUInt32BE(int(10_000), 20);
        return `data:image/png;base64,${head.toString('base64')}${'A'.repeat(int(200))}`;
      }
      case 1: {
        const head = Buffer.alloc(10);
        head.write('GIF89a', 0, 'latin1');
        head.writeUInt16LE(int(65_536), 6);
        head.writeUInt16LE(int(65_536), 8);
        return `data:image/gif;base64,${head.toString('base64')}`;
      }
      case 2:
        return `data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD${'B'.repeat(int(200))}`;
      case 3:
        return `https://example.com/${text(1)}.png`;
      default:
        return text(1);
    }
  };

  /** Any JSON value: nested objects and arrays of strings, numbers, booleans and nulls. */
  const json = (depth = 0): unknown => {
    const kind = depth > 4 ? 2 + int(4) : int(6);
    switch (kind) {
      case 0:
        return Object.fromEntries(
          Array.from({ length: int(5) }, () => [chance(0.8) ? pick(['type', 'properties', 'description', 'enum']) : text(1), json(depth + 1)]),
        );
      case 1:
        return Array.from({ length: int(5) }, () => json(depth + 1));
      case 2:
        return text(1);
      case 3:
        return pick([0, -0, 1, -17, 3.14159, 1e21, 1e-7, 2 ** 53, -1.5e300]);
      case 4:
        return chance(0.5);
      default:
        return null;
    }
  };

  /** Mostly what clients send, sometimes the wrong type in a field (the count then takes the JSON text). */
  const maybeWrong = (value: unknown): unknown => (chance(0.04) ? pick([7, null, true, [], {}, text(1)]) : value);

  return { next, int, chance, pick, text, imageUrl, json, maybeWrong };
}

type Random = ReturnType<typeof generator>;

function chatPart(r: Random): unknown {
  switch (r.int(7)) {
    case 0:
    case 1:
      return { type: 'text', text: r.maybeWrong(r.text()) };
    case 2: {
      const detail = r.pick([undefined, null, 'low', 'high', 'auto', 7]);
      return { type: 'image_url', image_url: r.chance(0.3) ? r.imageUrl() : { url: r.maybeWrong(r.imageUrl()), ...(detail === undefined ? {} : { detail }) } };
    }
    case 3:
      return { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } };
    case 4:
      return { type: 'file', file: { file_id: 'file-1' } };
    case 5:
      return { type: r.text(1) };
    default:
      return r.maybeWrong({ type: 'text', text: r.text() });
  }
}

function chatMessage(r: Random): unknown {
  if (r.chance(0.03)) return r.json();
  const message: Record<string, unknown> = { role: r.maybeWrong(r.pick(['system', 'user', 'assistant', 'tool', r.text(1)])) };
  const content = r.int(4);
  if (content === 0) message.content = r.maybeWrong(r.text());
  else if (content === 1) message.content = Array.from({ length: r.int(5) }, () => chatPart(r));
  else if (content === 2) message.content = null;
  if (r.chance(0.2)) message.name = r.maybeWrong(r.text(1));
  if (r.chance(0.2)) message.tool_call_id = r.maybeWrong(r.text(1));
  if (r.chance(0.2)) {
    message.tool_calls = Array.from({ length: 1 + r.int(3) }, () =>
      r.maybeWrong({
        id: r.maybeWrong('call_1'),
        type: 'function',
        function: r.maybeWrong({ name: r.maybeWrong(r.text(1)), arguments: r.maybeWrong(r.chance(0.5) ? JSON.stringify(r.json()) : r.text()) }),
      }),
    );
  }
  return message;
}

function chatTool(r: Random): unknown {
  if (r.chance(0.03)) return r.json();
  const fn: Record<string, unknown> = { name: r.maybeWrong(r.text(1)) };
  if (r.chance(0.7)) fn.description = r.maybeWrong(r.text());
  if (r.chance(0.8)) fn.parameters = r.maybeWrong({ type: 'object', properties: r.json(1) });
  return { type: 'function', function: r.maybeWrong(fn) };
}

const many = <T>(r: Random, make: (r: Random) => T, most: number): T[] => Array.from({ length: r.int(most + 1) }, () => make(r));

function chatBody(r: Random): Record<string, unknown> {
  return { model: 'm', messages: many(r, chatMessage, 12), ...(r.chance(0.4) ? { tools: many(r, chatTool, 5) } : {}) };
}

/** `prompt` or `input` of completions, embeddings and moderations: a text, texts, token arrays, a mix. */
function textsValue(r: Random): unknown {
  switch (r.int(5)) {
    case 0:
      return r.text();
    case 1:
      return many(r, (g) => g.text(), 8);
    case 2:
      return many(r, (g) => many(g, (h) => h.int(100_000), 20), 4);
    case 3:
      return many(r, (g) => g.int(100_000), 20);
    default:
      return many(r, (g) => (g.chance(0.5) ? g.text() : g.chance(0.5) ? [1, 2, 3] : g.json()), 6);
  }
}

function anthropicBlock(r: Random, role: string): unknown {
  switch (r.int(role === 'assistant' ? 4 : 5)) {
    case 0:
    case 1:
      return { type: 'text', text: r.maybeWrong(r.text()) };
    case 2:
      return role === 'assistant'
        ? { type: 'tool_use', id: 'toolu_1', name: r.maybeWrong(r.text(1)), input: r.json() }
        : {
            type: 'image',
            source: r.chance(0.6)
              ? { type: 'base64', media_type: r.pick(['image/png', 'image/gif', 'image/jpeg', 'a,b']), data: r.imageUrl().split(',').pop() }
              : { type: 'url', url: r.imageUrl() },
          };
    case 3:
      return role === 'assistant'
        ? { type: 'thinking', thinking: r.text() }
        : {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: r.chance(0.5) ? r.text() : many(r, (g) => ({ type: 'text', text: g.text() }), 3),
            is_error: r.chance(0.2),
          };
    default:
      return { type: 'document', source: { type: 'text', data: r.text() } };
  }
}

function messagesBody(r: Random): Record<string, unknown> {
  const messages = many(
    r,
    (g) => {
      const role = g.pick(['user', 'assistant']);
      return { role, content: g.chance(0.3) ? g.text() : many(g, (h) => anthropicBlock(h, role), 4) };
    },
    10,
  );
  const system = r.chance(0.5) ? r.text() : many(r, (g) => ({ type: 'text', text: g.text() }), 3);
  const tools = many(
    r,
    (g) => ({ name: g.maybeWrong(g.text(1)), description: g.text(), input_schema: g.maybeWrong({ type: 'object', properties: g.json(1) }) }),
    4,
  );
  return { model: 'm', max_tokens: 100, system, messages, tools };
}

function geminiPart(r: Random, role: string): unknown {
  switch (r.int(6)) {
    case 0:
    case 1:
      return { text: r.text(), ...(role === 'model' && r.chance(0.2) ? { thought: true } : {}) };
    case 2:
      return { inlineData: { mimeType: r.pick(['image/png', 'image/gif', 'image/jpeg']), data: r.imageUrl().split(',').pop() } };
    case 3:
      return { fileData: { fileUri: r.imageUrl(), mimeType: 'image/png' } };
    case 4:
      return role === 'model' ? { functionCall: { name: r.text(1), args: r.json() } } : { functionResponse: { name: r.text(1), response: r.json() } };
    default:
      return r.json();
  }
}

function geminiBody(r: Random): Record<string, unknown> {
  const contents = many(
    r,
    (g) => {
      const role = g.pick(['user', 'model']);
      return { role, parts: many(g, (h) => geminiPart(h, role), 4) };
    },
    8,
  );
  const declarations = many(
    r,
    (g) => ({ name: g.maybeWrong(g.text(1)), description: g.text(), parameters: g.maybeWrong({ type: 'OBJECT', properties: g.json(1) }) }),
    3,
  );
  const request = {
    contents,
    ...(r.chance(0.5) ? { systemInstruction: { parts: many(r, (g) => ({ text: g.text() }), 2) } } : {}),
    ...(r.chance(0.5) ? { tools: [{ functionDeclarations: declarations }] } : {}),
  };
  return { model: 'gemini-2.5-flash', request, sse: false };
}

const geminiContent = (r: Random) => ({ parts: many(r, (g) => (g.chance(0.8) ? { text: g.text() } : g.json()), 4) });

function responsesInput(r: Random): unknown {
  if (r.chance(0.3)) return r.text();
  return many(
    r,
    (g) => ({
      role: g.pick(['user', 'assistant', 'system']),
      type: 'message',
      content: many(g, (h) => (h.chance(0.7) ? { type: 'input_text', text: h.text() } : { type: 'function_call_output', call_id: 'c', output: h.text() }), 3),
    }),
    6,
  );
}

/** Every operation whose estimatePrompt the relay called before the bound, with random bodies of its shape. */
const shapes: Array<[string, OperationDefinition, (r: Random) => Record<string, unknown>]> = [
  ['chat', chatCompletionsOperation, chatBody],
  ['messages', messagesOperation, messagesBody],
  ['gemini generateContent', geminiGenerateOperation, geminiBody],
  ['gemini embedContent', geminiEmbedOperation, (r) => ({ model: 'text-embedding-004', request: { content: geminiContent(r) } })],
  [
    'gemini batchEmbedContents',
    geminiBatchEmbedOperation,
    (r) => ({ model: 'text-embedding-004', request: { requests: many(r, (g) => ({ content: geminiContent(g) }), 6) } }),
  ],
  ['completions', completionsOperation, (r) => ({ model: 'm', prompt: textsValue(r) })],
  ['embeddings', embeddingsOperation, (r) => ({ model: 'm', input: textsValue(r) })],
  ['moderations', moderationsOperation, (r) => ({ model: 'm', input: textsValue(r) })],
  ['responses', responsesOperation, (r) => ({ model: 'm', ...(r.chance(0.5) ? { instructions: r.text() } : {}), input: responsesInput(r) })],
  [
    'rerank',
    rerankOperation,
    (r) => ({ model: 'm', query: r.text() || 'q', documents: [r.text(), ...many(r, (g) => (g.chance(0.5) ? g.text() : { text: g.text() }), 8)] }),
  ],
  ['image generations', imageGenerationsOperation, (r) => ({ model: 'gpt-image-1', prompt: r.chance(0.9) ? r.text(1 + r.int(8)) : r.json() })],
  ['speech', speechOperation, (r) => ({ model: 'tts-1', input: r.text() || 'x', voice: 'alloy' })],
  [
    'transcriptions',
    transcriptionsOperation,
    (r) => ({ model: 'whisper-1', file: { filename: 'a.mp3', contentType: 'audio/mpeg', data: Buffer.alloc(r.int(200_000)) } }),
  ],
];

/** The body of case `seed` for a shape: what a failure's message names. */
function bodyFor(shape: string, seed: number): Record<string, unknown> {
  return shapes.find(([name]) => name === shape)![2](generator(seed));
}

const CASES_PER_SHAPE = 400;

describe('boundPrompt >= estimatePrompt', () => {
  beforeAll(() => preloadEncoders());

  it.each(shapes.map(([name, operation]) => [name, operation] as const))(`%s: ${CASES_PER_SHAPE} random bodies, both encodings`, (name, operation) => {
    const failures: string[] = [];
    for (let index = 0; index < CASES_PER_SHAPE; index++) {
      // One seed per case and shape: the failure message is enough to replay it.
      const seed = 1_000_003 * (shapes.findIndex(([shape]) => shape === name) + 1) + index;
      const body = bodyFor(name, seed);
      for (const model of MODELS) {
        const exact = operation.estimatePrompt(body, model);
        const bound = operation.boundPrompt(body, model);
        if (!(bound >= exact)) failures.push(`${name} seed ${seed} ${model}: bound ${bound} < count ${exact}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('is exactly the count where no text is involved: images, audio and file parts, fixed costs', () => {
    const png = (width: number, height: number) => {
      const head = Buffer.alloc(24);
      head.writeUInt32BE(0x89504e47, 0);
      head.write('IHDR', 12, 'latin1');
      head.writeUInt32BE(width, 16);
      head.writeUInt32BE(height, 20);
      return `data:image/png;base64,${head.toString('base64')}`;
    };
    // One token each for "user" and "a" in both encodings: the bound takes their 4 and 1 bytes.
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: png(4096, 4096) } },
          { type: 'image_url', image_url: { url: png(4096, 4096), detail: 'low' } },
          { type: 'image_url', image_url: 'https://example.com/cat.jpg' },
          { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          { type: 'file', file: { file_id: 'f' } },
        ],
      },
    ];
    for (const model of MODELS) {
      expect(chatPromptBound(messages)).toBe(countChatPrompt(messages, model) + (4 - 1));
      expect(chatPromptBound([])).toBe(countChatPrompt([], model));
    }
    expect(chatPromptBound([])).toBe(3);
  });

  it('holds at the edges: an empty body, only images, one very long word, lone surrogates before pairs', () => {
    const longWord = 'x'.repeat(200_000);
    const edges: Array<[OperationDefinition, Record<string, unknown>]> = [
      [chatCompletionsOperation, {}],
      [chatCompletionsOperation, { messages: [] }],
      [chatCompletionsOperation, { messages: [{ role: 'user', content: '' }] }],
      [chatCompletionsOperation, { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,' } }] }] }],
      [chatCompletionsOperation, { messages: [{ role: 'user', content: longWord }] }],
      [chatCompletionsOperation, { messages: [{ role: 'user', content: `${'!'.repeat(31)}\ud800${'😀'.repeat(100)}` }] }],
      [chatCompletionsOperation, { messages: [{ role: 'user', content: '\ud800'.repeat(1000) }] }],
      [chatCompletionsOperation, { messages: [{ role: 'user', content: 7 }], tools: [{ function: { name: 'f', parameters: [] } }] }],
      [messagesOperation, { messages: [] }],
      [geminiGenerateOperation, { request: {} }],
      [completionsOperation, {}],
      [completionsOperation, { prompt: longWord }],
      [embeddingsOperation, { input: [[], '', []] }],
      [responsesOperation, {}],
      [imageGenerationsOperation, {}],
    ];
    for (const model of MODELS) {
      for (const [operation, body] of edges) expect(operation.boundPrompt(body, model)).toBeGreaterThanOrEqual(operation.estimatePrompt(body, model));
    }
  });

  it('text: a token is at least one UTF-8 byte, in both encodings', () => {
    const failures: string[] = [];
    for (let seed = 1; seed <= 1000; seed++) {
      const text = generator(seed).text(1 + (seed % 12));
      for (const model of MODELS) {
        if (textTokenBound(text) < countText(text, model)) failures.push(`text seed ${seed} ${model}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('what the bound mirrors', () => {
  it('countText never cuts a surrogate pair, even right after a lone high surrogate (else its halves would count 3 bytes each)', () => {
    // A symbol run: the first cut falls at 32, after the lone surrogate and before a pair.
    const text = `${'%'.repeat(31)}\ud800${'🀄'.repeat(20)}`;
    const encode = jest.spyOn(encoderFor('gpt-4'), 'encode');
    try {
      countText(text, 'gpt-4');
      expect(encode.mock.calls.map(([part]) => part)).toEqual([`${'%'.repeat(31)}\ud800`, '🀄'.repeat(16), '🀄'.repeat(4)]);
    } finally {
      encode.mockRestore();
    }
  });

  it('decides as the schemas do whether a message or a tool is read by its fields (else by its JSON text)', () => {
    const disagreements: string[] = [];
    for (let seed = 1; seed <= 3000; seed++) {
      const r = generator(seed);
      const message = chatMessage(r);
      if (isChatMessage(message) !== chatMessageSchema.safeParse(message).success)
        disagreements.push(`message seed ${seed}: ${jsonText(message).slice(0, 200)}`);
      const tool = chatTool(r);
      if (isChatTool(tool) !== chatToolSchema.safeParse(tool).success) disagreements.push(`tool seed ${seed}: ${jsonText(tool).slice(0, 200)}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('sums the bytes of the JSON text without building it', () => {
    const values: unknown[] = [undefined, null, '', 'a"b\\c\n\u0001\ud800😀', [undefined, () => 1], { a: undefined, b: [1, -0, 1e21] }, 10n];
    for (let seed = 1; seed <= 2000; seed++) values.push(generator(seed).json());
    for (const value of values) expect(jsonTextBytes(value)).toBe(Buffer.byteLength(jsonText(value), 'utf8'));
  });
});
