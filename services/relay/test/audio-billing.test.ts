import { RelayError } from '../src/errors.js';
import { speechCharacters, speechOperation, speechUsage } from '../src/operations/audio-speech.js';
import {
  durationTokens,
  subtitleSeconds,
  textUsage,
  transcriptionAnswer,
  transcriptionForm,
  transcriptionsOperation,
  transcriptionUsage,
  translationsOperation,
  uploadHoldTokens,
  type TranscriptionFormat,
} from '../src/operations/audio-transcription.js';
import type { UpstreamAnswer } from '../src/operations/types.js';

const usage = (prompt: number, completion = 0) => ({ prompt_tokens: prompt, completion_tokens: completion, cached_tokens: 0 });

function upstream(text: string, contentType: string): UpstreamAnswer {
  return { text, contentType, json: () => JSON.parse(text) as unknown };
}

function rejection(run: () => unknown): RelayError {
  try {
    run();
  } catch (error) {
    if (error instanceof RelayError) return error;
    throw error;
  }
  throw new Error('expected a RelayError');
}

const file = (bytes: number) => ({ filename: 'a.mp3', contentType: 'audio/mpeg', data: Buffer.alloc(bytes, 7) });

describe('speech billing', () => {
  it('counts characters as code points (the established product counts runes)', () => {
    expect(speechCharacters('hello')).toBe(5);
    expect(speechCharacters('héllo')).toBe(5);
    // One emoji is two UTF-16 units but one character.
    expect(speechCharacters('😀 ok')).toBe(4);
    expect(speechCharacters('')).toBe(0);
  });

  it.each([
    ['whole audio', { bytes: 816, total: 816, complete: true }, 100],
    ['whole audio without content-length', { bytes: 816, total: null, complete: true }, 100],
    ['a quarter delivered', { bytes: 204, total: 816, complete: false }, 25],
    ['half delivered', { bytes: 408, total: 816, complete: false }, 50],
    ['one byte delivered: rounded up', { bytes: 1, total: 816, complete: false }, 1],
    ['cut short without content-length: all the characters', { bytes: 204, total: null, complete: false }, 100],
    ['a content-length of 0 says nothing: all the characters', { bytes: 10, total: 0, complete: false }, 100],
  ])('%s', (_name, delivered, prompt) => {
    expect(speechUsage(100, delivered)).toEqual(usage(prompt));
  });

  it('holds exactly the characters', () => {
    expect(speechOperation.estimatePrompt({ model: 'tts-1', input: 'héllo 😀', voice: 'alloy' }, 'tts-1')).toBe(7);
    expect(speechOperation.inspect({ model: 'tts-1', input: 'x', voice: 'alloy' })).toMatchObject({ model: 'tts-1', stream: false });
  });

  it.each([
    [{ voice: 'alloy' }, 'input'],
    [{ input: '', voice: 'alloy' }, 'input'],
    [{ input: 42, voice: 'alloy' }, 'input'],
    [{ input: 'x'.repeat(4097), voice: 'alloy' }, 'input'],
    [{ input: 'hi' }, 'voice'],
    [{ input: 'hi', voice: '' }, 'voice'],
    [{ input: 'hi', voice: {} }, 'voice'],
    [{ input: 'hi', voice: 'alloy', response_format: 'ogg' }, 'response_format'],
    [{ input: 'hi', voice: 'alloy', speed: 0.2 }, 'speed'],
    [{ input: 'hi', voice: 'alloy', speed: 4.5 }, 'speed'],
    [{ input: 'hi', voice: 'alloy', speed: '1' }, 'speed'],
    [{ input: 'hi', voice: 'alloy', stream_format: 'chunks' }, 'stream_format'],
  ])('refuses %j naming %s', (fields, param) => {
    const error = rejection(() => speechOperation.inspect({ model: 'tts-1', ...fields }));
    expect(error).toMatchObject({ statusCode: 400, param });
  });

  it('accepts 4096 characters (of any width), a custom voice, and every documented format', () => {
    expect(() => speechOperation.inspect({ model: 'tts-1', input: '😀'.repeat(4096), voice: { id: 'voice_1' } })).not.toThrow();
    for (const format of ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']) {
      expect(() => speechOperation.inspect({ model: 'tts-1', input: 'x', voice: 'alloy', response_format: format, speed: 0.25 })).not.toThrow();
    }
  });
});

describe('transcription billing', () => {
  it.each([
    [0, 0],
    [0.2, 17], // 1 s: 16.67 tokens, rounded up
    [1, 17],
    [59.4, 1000],
    [60, 1000],
    [62.5, 1050], // 63 s
    [61.5, 1034], // 62 s: 1033.33
    [-3, 0],
    [Number.NaN, 0],
  ])('%d seconds are %d tokens (1 minute = 1,000 tokens, whole seconds rounded up)', (seconds, tokens) => {
    expect(durationTokens(seconds)).toBe(tokens);
  });

  it('holds the duration of the upload at 16 kbit/s: never less than its duration at that bitrate or more', () => {
    expect(uploadHoldTokens(120_000)).toBe(1000); // 60 s
    expect(uploadHoldTokens(125_000)).toBe(1050); // 62.5 s -> 63 s
    expect(uploadHoldTokens(1)).toBe(17);
    for (const bytes of [1, 1999, 2001, 250_000, 25 * 1024 * 1024]) {
      for (const bitrate of [2000, 4000, 16_000]) expect(uploadHoldTokens(bytes)).toBeGreaterThanOrEqual(durationTokens(bytes / bitrate));
    }
  });

  it.each([
    ['whisper-1 duration usage', { text: 'x', usage: { type: 'duration', seconds: 63 } }, usage(1050)],
    [
      'gpt-4o-transcribe token usage',
      {
        text: 'x',
        usage: { type: 'tokens', input_tokens: 640, input_token_details: { text_tokens: 10, audio_tokens: 630 }, output_tokens: 4, total_tokens: 644 },
      },
      usage(640, 4),
    ],
    ['chat-shaped usage', { text: 'x', usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }, usage(12, 3)],
    ['usage wins over the duration', { text: 'x', duration: 600, usage: { type: 'duration', seconds: 6 } }, usage(100)],
    ['verbose_json without usage: its duration', { text: 'x', duration: 62.5, segments: [] }, usage(1050)],
    ['a usage of an unknown shape: the duration', { text: 'x', duration: 30, usage: { type: 'credits', credits: 9 } }, usage(500)],
  ])('%s', (_name, json, expected) => {
    expect(transcriptionUsage(json)).toEqual(expected);
  });

  it('says nothing when the answer has neither usage nor duration', () => {
    expect(transcriptionUsage({ text: 'hello' })).toBeNull();
    expect(transcriptionUsage('hello')).toBeNull();
    expect(transcriptionUsage({ text: 'x', usage: { type: 'duration' } })).toBeNull();
  });

  it('reads the end of the last cue of SRT and WebVTT', () => {
    const srt = '1\n00:00:00,000 --> 00:00:02,500\nhello\n\n2\n00:00:02,500 --> 00:01:02,480\nhello\n\n';
    expect(subtitleSeconds(srt)).toBeCloseTo(62.48, 6);
    const vtt = 'WEBVTT\n\n00:00.000 --> 00:04.000\nhello\n\n01:00:00.000 --> 01:00:01.250 align:start\nhello\n\n';
    expect(subtitleSeconds(vtt)).toBeCloseTo(3601.25, 6);
    expect(subtitleSeconds('WEBVTT\n\n')).toBeNull();
  });

  it('counts the text as completion tokens when nothing else is known', () => {
    expect(textUsage('hello hello hello hello', 'whisper-1')).toEqual(usage(0, 4));
    expect(textUsage('', 'whisper-1')).toEqual(usage(0, 0));
  });

  const answer = (format: TranscriptionFormat, text: string, contentType: string) => transcriptionAnswer(upstream(text, contentType), format, 'whisper-1');

  it('passes json and verbose_json through, billed by their usage or duration', () => {
    const json = '{"text":"hello hello","usage":{"type":"duration","seconds":3}}';
    expect(answer('json', json, 'application/json')).toEqual({ body: JSON.parse(json), usage: usage(50), counted: false });
    const verbose = '{"task":"transcribe","duration":125.2,"text":"hello"}';
    expect(answer('verbose_json', verbose, 'application/json')).toEqual({ body: JSON.parse(verbose), usage: usage(2100), counted: false });
    expect(answer('json', '{"text":"hello hello"}', 'application/json')).toEqual({ body: { text: 'hello hello' }, usage: usage(0, 2), counted: true });
  });

  it('answers text from the json it asked for, as OpenAI does (the transcript and a newline)', () => {
    expect(answer('text', '{"text":"hello hello","usage":{"type":"duration","seconds":61}}', 'application/json')).toEqual({
      body: 'hello hello\n',
      contentType: 'text/plain; charset=utf-8',
      usage: usage(1017),
      counted: false,
    });
    expect(answer('text', '{"text":"hello hello"}', 'application/json; charset=utf-8')).toMatchObject({ body: 'hello hello\n', usage: usage(0, 2) });
    // An upstream that answered text anyway: passed through, its tokens counted.
    expect(answer('text', 'hello hello\n', 'text/plain')).toEqual({ body: 'hello hello\n', contentType: 'text/plain', usage: usage(0, 2), counted: true });
    expect(rejection(() => answer('text', '{"transcript":"x"}', 'application/json'))).toMatchObject({ statusCode: 502 });
  });

  it('passes srt and vtt through with their content type, billed by the last cue', () => {
    const srt = '1\n00:00:00,000 --> 00:01:00,001\nhello\n\n';
    expect(answer('srt', srt, 'text/plain; charset=utf-8')).toEqual({
      body: srt,
      contentType: 'text/plain; charset=utf-8',
      usage: usage(1017),
      counted: false,
    });
    expect(answer('vtt', 'WEBVTT\n\n', '')).toEqual({
      body: 'WEBVTT\n\n',
      contentType: 'text/plain; charset=utf-8',
      usage: usage(0, countOf('WEBVTT\n\n')),
      counted: true,
    });
  });

  it('forwards the form with the channel model, asking json for text, repeated fields repeated', async () => {
    const body = {
      model: 'public-name',
      file: file(10),
      response_format: 'text',
      language: 'en',
      timestamp_granularities: ['word', 'segment'],
    };
    const form = transcriptionForm(body, 'whisper-1');
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('response_format')).toBe('json');
    expect(form.get('language')).toBe('en');
    expect(form.getAll('timestamp_granularities[]')).toEqual(['word', 'segment']);
    const sent = form.get('file') as File;
    expect(sent.name).toBe('a.mp3');
    expect(sent.type).toBe('audio/mpeg');
    expect(Buffer.from(await sent.arrayBuffer())).toEqual(Buffer.alloc(10, 7));
    expect(transcriptionForm({ ...body, response_format: 'srt' }, 'whisper-1').get('response_format')).toBe('srt');
  });

  it('holds by the file size', () => {
    expect(transcriptionsOperation.estimatePrompt({ model: 'whisper-1', file: file(250_000) }, 'whisper-1')).toBe(uploadHoldTokens(250_000));
  });

  it.each([
    [{}, 'file'],
    [{ file: 'not a file' }, 'file'],
    [{ file: [file(1), file(1)] }, 'file'],
    [{ file: file(1), response_format: 'docx' }, 'response_format'],
    [{ file: file(1), stream: 'true' }, 'stream'],
    [{ file: file(1), model: '' }, 'model'],
  ])('refuses %j naming %s', (fields, param) => {
    for (const operation of [transcriptionsOperation, translationsOperation]) {
      expect(rejection(() => operation.inspect({ model: 'whisper-1', ...fields }))).toMatchObject({ statusCode: 400, param });
    }
  });

  it('says streaming is not supported yet', () => {
    expect(rejection(() => transcriptionsOperation.inspect({ model: 'gpt-4o-transcribe', file: file(1), stream: 'true' })).message).toMatch(
      /stream is not supported yet for audio transcriptions/,
    );
    expect(() => transcriptionsOperation.inspect({ model: 'whisper-1', file: file(1), stream: 'false' })).not.toThrow();
  });
});

function countOf(text: string): number {
  return textUsage(text, 'whisper-1').completion_tokens;
}
