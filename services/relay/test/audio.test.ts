import OpenAI, { toFile } from 'openai';
import { waitFor } from '@aigw/platform/testing';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/**
 * The mock's speech audio (tools/mock-upstream/README.md, "Audio"): `MOCKAUDIO/<format>` padded
 * to 15 bytes and a newline, then 8 bytes (c + 31 k) & 0xff for each code point c of the input.
 */
function mockAudio(format: string, input: string): Buffer {
  const characters = [...input];
  const audio = Buffer.alloc(16 + 8 * characters.length);
  audio.write(`MOCKAUDIO/${format}`.padEnd(15) + '\n', 'latin1');
  characters.forEach((character, index) => {
    for (let k = 0; k < 8; k++) audio[16 + 8 * index + k] = (character.codePointAt(0)! + 31 * k) & 0xff;
  });
  return audio;
}

/** The mock reads an upload as 4,000 bytes a second: this one lasts 62.5 s, billed as 63 s = 1,050 tokens. */
const UPLOAD = Buffer.alloc(250_000, 1);
const TOKENS_OF_UPLOAD = 1050;
/** The mock's transcript: `chunks` (4) segments of the word hello, one token each. */
const TRANSCRIPT = 'hello hello hello hello';

type Format = 'json' | 'text' | 'srt' | 'vtt' | 'verbose_json';

/** OpenAI's audio APIs through the gateway with the official client: answered as OpenAI does, billed exactly. */
describe('audio', () => {
  let world: RelayWorld;
  let client: OpenAI;

  const logOf = (requestId: string) => world.usageLog(requestId);
  const balance = () => world.balance();
  /** The log row has exactly these figures, and the balance went down by its quota. */
  const expectCharged = async (requestId: string | null, before: number, expected: { prompt_tokens: number; completion_tokens: number; quota: number }) => {
    expect(requestId).toBeTruthy();
    const log = await logOf(requestId!);
    expect(log).toMatchObject(expected);
    await waitFor(async () => (await balance()) === before - expected.quota, 10_000, 'balance applied');
    return log;
  };
  const lastUpstream = (path: string) => world.mock.requests.filter((entry) => entry.path === path).at(-1)!;
  const audioRequests = () => world.mock.requests.filter((entry) => entry.path.startsWith('/v1/audio/')).length;
  const post = async (path: string, body: FormData | Record<string, unknown>) => {
    const response = await fetch(`${world.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }) },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { error: { message: string; param?: string; type: string } } };
  };
  const upload = () => toFile(UPLOAD, 'a.mp3', { type: 'audio/mpeg' });

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'tts-1': 7.5, 'whisper-1': 15, 'gpt-4o-transcribe': 1.25 }));
    await world.setOption('ModelPrice', JSON.stringify({ 'mock-tts-priced': 0.015 }));
    await waitFor(
      async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.ModelPrice?.['mock-tts-priced'] === 0.015,
      10_000,
      'relay options',
    );
    // An Anthropic channel carries the audio models at a higher priority: it cannot serve them and is never tried.
    await world.addChannel({ name: 'anthropic-type', type: 14, models: 'tts-1,whisper-1,mock-claude-voice', priority: 10 });
    await world.addChannel({
      name: 'openai',
      models: 'tts-1,whisper-1,gpt-4o-transcribe,mock-tts-priced,mock-tts-slow,mock-tts-cut,mock-whisper-nousage',
      // The mock's options ride on the upstream model name (tools/mock-upstream/README.md).
      model_mapping: JSON.stringify({
        'mock-tts-priced': 'tts-1',
        'mock-tts-slow': 'tts-1@chunks=4,delay=60000',
        'mock-tts-cut': 'tts-1@cut=0',
        'mock-whisper-nousage': 'whisper-1@nousage',
      }),
    });
    await world.addChannel({
      name: 'siliconflow',
      type: 40,
      models: 'mock-sf-asr',
      model_mapping: JSON.stringify({ 'mock-sf-asr': 'FunAudioLLM/SenseVoiceSmall' }),
    });
    await world.waitForModel('mock-sf-asr');
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('speech', () => {
    // 44 characters (45 UTF-16 units): the emoji is one character.
    const input = 'The quick brown fox jumps over the lazy dog😀';

    it('pipes the audio as the upstream sends it and bills the characters of the input at the model ratio', async () => {
      const before = await balance();
      const { data, response } = await client.audio.speech
        .create({ model: 'tts-1', voice: 'alloy', input, response_format: 'opus', speed: 1.5 })
        .withResponse();
      expect(data.headers.get('content-type')).toBe('audio/opus');
      expect(Buffer.from(await data.arrayBuffer())).toEqual(mockAudio('opus', input));
      expect(lastUpstream('/v1/audio/speech').body).toEqual({ model: 'tts-1', voice: 'alloy', input, response_format: 'opus', speed: 1.5 });
      expect(world.mock.requests.some((entry) => entry.path === '/v1/messages')).toBe(false);
      // tts-1: ratio 7.5, 44 characters as prompt tokens, nothing for a completion.
      await expectCharged(response.headers.get('x-oneapi-request-id'), before, { prompt_tokens: 44, completion_tokens: 0, quota: 330 });
    });

    it('answers mp3 by default', async () => {
      const before = await balance();
      const { data, response } = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input: 'hi' }).withResponse();
      expect(data.headers.get('content-type')).toBe('audio/mpeg');
      expect(Buffer.from(await data.arrayBuffer())).toEqual(mockAudio('mp3', 'hi'));
      await expectCharged(response.headers.get('x-oneapi-request-id'), before, { prompt_tokens: 2, completion_tokens: 0, quota: 15 });
    });

    it('charges a model with a ModelPrice per call', async () => {
      const before = await balance();
      const { data, response } = await client.audio.speech.create({ model: 'mock-tts-priced', voice: 'alloy', input }).withResponse();
      expect(Buffer.from(await data.arrayBuffer())).toEqual(mockAudio('mp3', input));
      // 0.015 USD x QuotaPerUnit 500,000 x group ratio 1.
      await expectCharged(response.headers.get('x-oneapi-request-id'), before, { prompt_tokens: 44, completion_tokens: 0, quota: 7500 });
    });

    it('bills a client that leaves mid-download for the share of the audio it was sent', async () => {
      const before = await balance();
      const controller = new AbortController();
      // 100 characters: 816 bytes of audio in 4 parts of 204, a minute apart.
      const { data, response } = await client.audio.speech
        .create({ model: 'mock-tts-slow', voice: 'alloy', input: 'a'.repeat(100) }, { signal: controller.signal })
        .withResponse();
      expect(data.headers.get('content-length')).toBe('816');
      const reader = data.body!.getReader();
      const first = await reader.read();
      expect(first.value!.length).toBeGreaterThan(0);
      controller.abort();
      await reader.cancel().catch(() => undefined);
      // 204 of 816 bytes delivered: ceil(100 x 204 / 816) = 25 characters, at ratio 1.
      const log = await expectCharged(response.headers.get('x-oneapi-request-id'), before, { prompt_tokens: 25, completion_tokens: 0, quota: 25 });
      expect(log.content).toContain('client disconnected');
    });

    it('bills an audio the upstream broke off for the share that was delivered', async () => {
      const before = await balance();
      const { data, response } = await client.audio.speech.create({ model: 'mock-tts-cut', voice: 'alloy', input: 'a'.repeat(100) }).withResponse();
      await expect(data.arrayBuffer()).rejects.toThrow();
      // The upstream promised 816 bytes and sent 408: half the characters.
      const log = await expectCharged(response.headers.get('x-oneapi-request-id'), before, { prompt_tokens: 50, completion_tokens: 0, quota: 50 });
      expect(log.content).toContain('upstream answer broken');
    });

    it.each([
      ['an empty input', { model: 'tts-1', voice: 'alloy', input: '' }, 'input'],
      ['no input', { model: 'tts-1', voice: 'alloy' }, 'input'],
      ['an input of 4097 characters', { model: 'tts-1', voice: 'alloy', input: 'x'.repeat(4097) }, 'input'],
      ['no voice', { model: 'tts-1', input: 'hi' }, 'voice'],
      ['an unknown response_format', { model: 'tts-1', input: 'hi', voice: 'alloy', response_format: 'ogg' }, 'response_format'],
      ['a speed beyond 4', { model: 'tts-1', input: 'hi', voice: 'alloy', speed: 5 }, 'speed'],
    ])('answers 400 for %s naming the field, before anything is forwarded', async (_name, body, param) => {
      const forwarded = audioRequests();
      const answer = await post('/v1/audio/speech', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ param, type: 'invalid_request_error' });
      expect(audioRequests()).toBe(forwarded);
    });
  });

  describe('transcriptions', () => {
    const request = async (model: string, format: Format, extra: Record<string, unknown> = {}) => {
      // The client returns a string for text, srt and vtt, an object for the JSON formats.
      const { data, response } = await client.audio.transcriptions
        .create({ model, file: await upload(), response_format: format as 'json', ...extra })
        .withResponse();
      return { data: data as unknown, requestId: response.headers.get('x-oneapi-request-id'), contentType: response.headers.get('content-type') };
    };

    // [model, response_format, prompt tokens, completion tokens, quota]
    it.each<[string, Format, number, number, number]>([
      // whisper-1 reports `usage: {type: 'duration', seconds: 63}` (text is asked as json to get it);
      // srt and vtt carry no usage: their last cue ends at 62.5 s. Ratio 15.
      ['whisper-1', 'json', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD * 15],
      ['whisper-1', 'text', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD * 15],
      ['whisper-1', 'srt', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD * 15],
      ['whisper-1', 'vtt', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD * 15],
      ['whisper-1', 'verbose_json', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD * 15],
      // An upstream that reports no usage: the transcript's 4 tokens as completion (ratio 1,
      // completion ratio 2), or the duration of verbose_json and of the subtitles' last cue.
      ['mock-whisper-nousage', 'json', 0, 4, 8],
      ['mock-whisper-nousage', 'text', 0, 4, 8],
      ['mock-whisper-nousage', 'srt', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD],
      ['mock-whisper-nousage', 'vtt', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD],
      ['mock-whisper-nousage', 'verbose_json', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD],
      // gpt-4o-transcribe reports tokens: 630 audio + 2 for the prompt "gateway", 4 out. Ratio
      // 1.25, completion ratio 4 (the gpt-4o family's): (632 + 4 x 4) x 1.25. It answers json
      // only: the client's text is asked for as json.
      ['gpt-4o-transcribe', 'json', 632, 4, 810],
      ['gpt-4o-transcribe', 'text', 632, 4, 810],
      // SiliconFlow (channel type 40), through the family's form passthrough; ratio 1.
      ['mock-sf-asr', 'json', TOKENS_OF_UPLOAD, 0, TOKENS_OF_UPLOAD],
    ])('%s answers %s, billed %i prompt and %i completion tokens: quota %i', async (model, format, prompt, completion, quota) => {
      const before = await balance();
      const { data, requestId, contentType } = await request(model, format, model.startsWith('gpt-4o') ? { prompt: 'gateway' } : {});

      if (format === 'json') expect(data).toMatchObject({ text: TRANSCRIPT });
      if (format === 'text') expect(data).toBe(`${TRANSCRIPT}\n`);
      if (format === 'srt') expect(data).toMatch(/^1\n00:00:00,000 --> 00:00:15,625\nhello\n\n2\n/);
      if (format === 'srt' || format === 'vtt') expect(data).toMatch(/00:01:02[,.]500\nhello\n\n$/);
      if (format === 'vtt') expect(data).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:15\.625\nhello\n\n/);
      if (format === 'verbose_json') expect(data).toMatchObject({ task: 'transcribe', duration: 62.5, text: TRANSCRIPT, segments: expect.any(Array) });
      expect(contentType).toMatch(format === 'json' || format === 'verbose_json' ? /^application\/json/ : /^text\/plain/);

      const upstream = lastUpstream('/v1/audio/transcriptions').body as Record<string, unknown>;
      expect(upstream.model).toBe(model === 'mock-sf-asr' ? 'FunAudioLLM/SenseVoiceSmall' : model === 'mock-whisper-nousage' ? 'whisper-1@nousage' : model);
      expect(upstream.response_format).toBe(format === 'text' ? 'json' : format);
      expect(upstream.file).toMatchObject({ name: 'a.mp3', size: UPLOAD.length });
      await expectCharged(requestId, before, { prompt_tokens: prompt, completion_tokens: completion, quota });
    });

    it('forwards the fields it does not read, repeated fields repeated', async () => {
      const before = await balance();
      const { data, requestId } = await request('whisper-1', 'verbose_json', { timestamp_granularities: ['word', 'segment'], language: 'en', temperature: 0 });
      expect(data).toMatchObject({ words: expect.any(Array), segments: expect.any(Array) });
      await expectCharged(requestId, before, { prompt_tokens: TOKENS_OF_UPLOAD, completion_tokens: 0, quota: TOKENS_OF_UPLOAD * 15 });
      expect(lastUpstream('/v1/audio/transcriptions').body).toMatchObject({
        model: 'whisper-1',
        language: 'en',
        temperature: '0',
        'timestamp_granularities[]': ['word', 'segment'],
      });
    });

    it('passes an upstream refusal through and charges nothing', async () => {
      const before = await balance();
      // gpt-4o-transcribe answers json only: srt is refused upstream.
      const error = (await request('gpt-4o-transcribe', 'srt').catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(400);
      // One usage record all the same, charging nothing; the hold is given back.
      await expectCharged(error.headers?.get('x-oneapi-request-id') ?? null, before, { prompt_tokens: 0, completion_tokens: 0, quota: 0 });
    });

    it.each([
      ['missing file', { response_format: 'json' }, 'file', /file is required/],
      ['bad response_format', { response_format: 'docx', file: true }, 'response_format', /response_format must be one of json, text, srt, vtt, verbose_json/],
      ['stream', { stream: 'true', file: true }, 'stream', /stream is not supported yet/],
    ])('answers 400 for a %s, naming it', async (_name, fields, param, message) => {
      const forwarded = audioRequests();
      for (const path of ['/v1/audio/transcriptions', '/v1/audio/translations']) {
        const form = new FormData();
        form.append('model', 'whisper-1');
        for (const [name, value] of Object.entries(fields)) {
          if (name === 'file') form.append('file', new Blob([UPLOAD], { type: 'audio/mpeg' }), 'a.mp3');
          else form.append(name, String(value));
        }
        const answer = await post(path, form);
        expect(answer.status).toBe(400);
        expect(answer.body.error).toMatchObject({ param, type: 'invalid_request_error' });
        expect(answer.body.error.message).toMatch(message);
      }
      expect(audioRequests()).toBe(forwarded);
    });

    it('answers 400 naming response_format through the official client', async () => {
      await expect(request('whisper-1', 'docx' as Format)).rejects.toMatchObject({ status: 400, param: 'response_format' });
    });
  });

  describe('translations', () => {
    it.each<[Format, unknown]>([
      ['verbose_json', expect.objectContaining({ task: 'translate', duration: 62.5, text: TRANSCRIPT })],
      ['text', `${TRANSCRIPT}\n`],
      ['json', { text: TRANSCRIPT, usage: { type: 'duration', seconds: 63 } }],
    ])('answers %s, billed by the duration', async (format, expected) => {
      const before = await balance();
      const { data, response } = await client.audio.translations.create({ model: 'whisper-1', file: await upload(), response_format: format }).withResponse();
      expect(data).toEqual(expected);
      expect(lastUpstream('/v1/audio/translations').body).toMatchObject({ model: 'whisper-1', response_format: format === 'text' ? 'json' : format });
      await expectCharged(response.headers.get('x-oneapi-request-id'), before, {
        prompt_tokens: TOKENS_OF_UPLOAD,
        completion_tokens: 0,
        quota: TOKENS_OF_UPLOAD * 15,
      });
    });
  });

  describe('a model only a channel that cannot serve audio carries', () => {
    const refused = async (call: Promise<unknown>, label: string) => {
      const error = (await call.catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(503);
      expect(error.message).toContain(`no channel can serve ${label} for model mock-claude-voice in group default`);
    };

    it('answers 503 naming the operation and the model', async () => {
      const forwarded = audioRequests();
      await refused(client.audio.speech.create({ model: 'mock-claude-voice', voice: 'alloy', input: 'hi' }), 'audio speech');
      await refused(client.audio.transcriptions.create({ model: 'mock-claude-voice', file: await upload() }), 'audio transcriptions');
      await refused(client.audio.translations.create({ model: 'mock-claude-voice', file: await upload() }), 'audio translations');
      expect(audioRequests()).toBe(forwarded);
      expect(world.mock.requests.some((entry) => entry.path === '/v1/messages')).toBe(false);
    });
  });
});
