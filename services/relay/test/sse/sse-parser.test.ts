import { formatSse, SseLineTooLongError, SseParser } from '../../src/sse/sse-parser.js';
import type { StreamEvent } from '../../src/providers/types.js';

/** An Anthropic-style recording: event names, a comment, a multi-line event, CRLF and LF, non-ASCII text. */
const recorded = [
  ': keep-alive\r\n',
  'event: message_start\r\n',
  'data: {"type":"message_start","text":"héllo 世界 🚀"}\r\n',
  '\r\n',
  'data: {"a":1}\n',
  '\n',
  'event: content_block_delta\n',
  'data: line one\n',
  'data:line two\n',
  'data\n',
  'id: 42\n',
  'retry: 1000\n',
  '\n',
  'data: [DONE]\n',
  '\n',
].join('');

const expected: StreamEvent[] = [
  { event: 'message_start', data: '{"type":"message_start","text":"héllo 世界 🚀"}' },
  { data: '{"a":1}' },
  { event: 'content_block_delta', data: 'line one\nline two\n' },
  { data: '[DONE]' },
];

function parseAll(chunks: Array<Uint8Array | string>, parser = new SseParser()): StreamEvent[] {
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return [...events, ...parser.end()];
}

describe('SseParser', () => {
  it('parses a whole recording in one chunk', () => {
    expect(parseAll([recorded])).toEqual(expected);
  });

  it('gives the same events whatever byte the stream is split at (two pieces)', () => {
    const bytes = Buffer.from(recorded, 'utf8');
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    }
  });

  it('gives the same events when fed one byte at a time (inside UTF-8 sequences and between CR and LF)', () => {
    const bytes = Buffer.from(recorded, 'utf8');
    const chunks = Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));
    expect(parseAll(chunks)).toEqual(expected);
  });

  it('gives the same events for string chunks split at every character', () => {
    for (let cut = 0; cut <= recorded.length; cut++) {
      expect(parseAll([recorded.slice(0, cut), recorded.slice(cut)])).toEqual(expected);
    }
  });

  it('treats a lone CR as a line end', () => {
    expect(parseAll(['data: a\r\rdata: b\r\r'])).toEqual([{ data: 'a' }, { data: 'b' }]);
  });

  it('returns each event as soon as its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"n":1}\n')).toEqual([]);
    expect(parser.push('\ndata: {"n":2}')).toEqual([{ data: '{"n":1}' }]);
    expect(parser.push('\n\n')).toEqual([{ data: '{"n":2}' }]);
  });

  it('delivers a last event that has no closing blank line when the stream ends', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"usage":1}')).toEqual([]);
    expect(parser.end()).toEqual([{ data: '{"usage":1}' }]);
  });

  it('dispatches nothing for comments or an event name without data', () => {
    expect(parseAll([': ping\n\nevent: ping\n\n'])).toEqual([]);
  });

  it('throws SseLineTooLongError for an endless line, without waiting for its end', () => {
    const parser = new SseParser({ maxLineLength: 64 });
    parser.push(`data: ${'x'.repeat(50)}`);
    expect(() => parser.push('x'.repeat(20))).toThrow(SseLineTooLongError);
  });

  it('throws SseLineTooLongError for an event whose data lines add up past the cap', () => {
    const parser = new SseParser({ maxLineLength: 64 });
    expect(() => parser.push(`data: ${'x'.repeat(40)}\ndata: ${'y'.repeat(40)}\n`)).toThrow(SseLineTooLongError);
  });

  it('accepts lines right up to the default 1 MiB cap', () => {
    const data = 'x'.repeat(1024 * 1024 - 'data: '.length);
    expect(parseAll([`data: ${data}\n\n`])).toEqual([{ data }]);
    expect(() => new SseParser().push(`data: ${data}x\n`)).toThrow(SseLineTooLongError);
  });
});

describe('formatSse', () => {
  it('writes one data event', () => {
    expect(formatSse('{"a":1}')).toBe('data: {"a":1}\n\n');
  });

  it('writes multi-line data as several data lines, which parse back to the same data', () => {
    const text = formatSse('line one\nline two');
    expect(text).toBe('data: line one\ndata: line two\n\n');
    expect(parseAll([text])).toEqual([{ data: 'line one\nline two' }]);
  });
});
