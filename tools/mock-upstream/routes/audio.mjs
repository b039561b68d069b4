// OpenAI's audio APIs, deterministic (README.md, "Audio"):
//   POST /v1/audio/speech          JSON in; a fake audio file out: a 16-byte header, then 8 bytes per character of `input`
//   POST /v1/audio/transcriptions  multipart in (`file` required); a transcript of the word "hello" in every response_format
//   POST /v1/audio/translations    the same, with `task: 'translate'`
// The audio's duration is its file size at 32 kbit/s: seconds = bytes / 4000.

/** Bytes a second the mock reads an upload as (32 kbit/s, a usual speech MP3). */
export const AUDIO_BYTES_PER_SECOND = 4000;
/** Length of the fake audio header. */
export const SPEECH_HEADER_BYTES = 16;
/** Bytes of fake audio per character (code point) of `input`. */
export const SPEECH_BYTES_PER_CHARACTER = 8;

const SPEECH_TYPES = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };
const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'];
const TEXT_TYPE = 'text/plain; charset=utf-8';
const WORD = 'hello';

/**
 * The audio the mock answers for `input` in `format`: `MOCKAUDIO/<format>` padded with spaces to
 * 15 bytes and a newline, then for each code point c the 8 bytes (c + 31 k) & 0xff, k = 0..7.
 */
export function speechAudio(format, input) {
  const header = Buffer.from(`MOCKAUDIO/${format}`.padEnd(SPEECH_HEADER_BYTES - 1) + '\n');
  const characters = [...input];
  const audio = Buffer.alloc(SPEECH_HEADER_BYTES + characters.length * SPEECH_BYTES_PER_CHARACTER);
  header.copy(audio);
  characters.forEach((character, index) => {
    const code = character.codePointAt(0);
    for (let k = 0; k < SPEECH_BYTES_PER_CHARACTER; k++) audio[SPEECH_HEADER_BYTES + index * SPEECH_BYTES_PER_CHARACTER + k] = (code + 31 * k) & 0xff;
  });
  return audio;
}

/** Seconds of an upload of `bytes`, to the millisecond. */
export function audioSeconds(bytes) {
  return Math.round((bytes * 1000) / AUDIO_BYTES_PER_SECOND) / 1000;
}

/** gpt-4o-transcribe and its kin report token usage and answer json only; whisper reports a duration. */
const tokenModel = (model) => /gpt-4o/.test(model);

/** Words of segment `index`: "hello" then " hello", `words` times (each one token, as the chat routes). */
function segmentText(index, words) {
  return index === 0 ? WORD + ` ${WORD}`.repeat(words - 1) : ` ${WORD}`.repeat(words);
}

const pad = (value, width) => String(value).padStart(width, '0');
function clock(seconds, separator) {
  const ms = Math.round(seconds * 1000);
  return `${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}${separator}${pad(ms % 1000, 3)}`;
}

/** The usage of a transcription, or undefined under `nousage`. */
function transcriptionUsage(baseModel, duration, prompt, options) {
  if (options.nousage) return undefined;
  const sign = options.negusage ? -1 : 1;
  if (!tokenModel(baseModel)) return { type: 'duration', seconds: sign * Math.ceil(duration) };
  // 10 audio tokens a second (whole seconds), the prompt's text at ceil(characters / 4), one output token a word.
  const audio = Math.ceil(duration) * 10;
  const text = Math.ceil(prompt.length / 4);
  const output = options.chunks * options.words;
  return {
    type: 'tokens',
    input_tokens: sign * (audio + text),
    input_token_details: { text_tokens: sign * text, audio_tokens: sign * audio },
    output_tokens: sign * output,
    total_tokens: sign * (audio + text + output),
  };
}

function transcription(kind, { baseModel, body, options, send }) {
  const file = body.file;
  if (typeof file !== 'object' || file === null || typeof file.size !== 'number')
    return send.error(400, "mock upstream: 'file' is required (a multipart file)");
  const format = body.response_format ?? 'json';
  if (!TRANSCRIPTION_FORMATS.includes(format)) return send.error(400, `mock upstream: response_format must be one of ${TRANSCRIPTION_FORMATS.join(', ')}`);
  if (tokenModel(baseModel) && format !== 'json') {
    return send.error(400, `response_format '${format}' is not compatible with model '${baseModel}'. Use 'json' instead.`);
  }

  const duration = audioSeconds(file.size);
  const segments = Array.from({ length: options.chunks }, (_, index) => ({
    id: index,
    seek: 0,
    start: Math.round((duration * index * 1000) / options.chunks) / 1000,
    end: index === options.chunks - 1 ? duration : Math.round((duration * (index + 1) * 1000) / options.chunks) / 1000,
    text: segmentText(index, options.words),
    tokens: [],
    temperature: 0,
    avg_logprob: -0.25,
    compression_ratio: 1,
    no_speech_prob: 0.01,
  }));
  const text = segments.map((segment) => segment.text).join('');
  const usage = transcriptionUsage(baseModel, duration, typeof body.prompt === 'string' ? body.prompt : '', options);

  if (format === 'text') return send.bytes(TEXT_TYPE, Buffer.from(`${text}\n`));
  if (format === 'srt' || format === 'vtt') {
    const separator = format === 'srt' ? ',' : '.';
    const cues = segments.map(
      (segment, index) =>
        `${format === 'srt' ? `${index + 1}\n` : ''}${clock(segment.start, separator)} --> ${clock(segment.end, separator)}\n${segment.text.trim()}\n\n`,
    );
    return send.bytes(TEXT_TYPE, Buffer.from((format === 'vtt' ? 'WEBVTT\n\n' : '') + cues.join('')));
  }
  if (format === 'json') return send.json(200, JSON.stringify({ text, ...(usage ? { usage } : {}) }));

  const granularities = [].concat(body['timestamp_granularities[]'] ?? body.timestamp_granularities ?? []);
  const words = segments.flatMap((segment) =>
    segment.text
      .trim()
      .split(' ')
      .map((word, index, all) => {
        const step = (segment.end - segment.start) / all.length;
        return { word, start: Math.round((segment.start + index * step) * 1000) / 1000, end: Math.round((segment.start + (index + 1) * step) * 1000) / 1000 };
      }),
  );
  return send.json(
    200,
    JSON.stringify({
      task: kind === 'translation' ? 'translate' : 'transcribe',
      language: 'english',
      duration,
      text,
      ...(granularities.length === 0 || granularities.includes('segment') ? { segments } : {}),
      ...(granularities.includes('word') ? { words } : {}),
      ...(usage ? { usage } : {}),
    }),
  );
}

/** `delay`: the audio in `chunks` parts, `delay` ms apart (the first with the headers), under one content-length. */
function sendPaced(res, contentType, audio, options) {
  res.writeHead(200, { 'content-type': contentType, 'content-length': audio.length });
  const parts = Math.max(1, Math.min(options.chunks, audio.length));
  let next = 0;
  let timer;
  const step = () => {
    timer = undefined;
    if (res.destroyed) return;
    const part = audio.subarray(Math.floor((next * audio.length) / parts), Math.floor(((next + 1) * audio.length) / parts));
    next++;
    if (next === parts) return res.end(part);
    res.write(part);
    timer = setTimeout(step, options.delay);
  };
  res.once('close', () => timer && clearTimeout(timer));
  step();
}

function speech(res, { body, options, send }) {
  if (typeof body.input !== 'string' || body.input === '') return send.error(400, "mock upstream: 'input' is required");
  if (body.voice === undefined || body.voice === null || body.voice === '') return send.error(400, "mock upstream: 'voice' is required");
  const format = body.response_format ?? 'mp3';
  if (!Object.hasOwn(SPEECH_TYPES, format)) return send.error(400, `mock upstream: response_format must be one of ${Object.keys(SPEECH_TYPES).join(', ')}`);
  const audio = speechAudio(format, body.input);
  if (options.delay > 0 && options.cut < 0 && !options.slowdrip) return sendPaced(res, SPEECH_TYPES[format], audio, options);
  // cut: promise the whole audio, send half, close; slowdrip: one byte every `drip` ms.
  send.bytes(SPEECH_TYPES[format], audio);
}

export const audioRoutes = {
  match(method, path) {
    if (method !== 'POST') return undefined;
    if (path === '/v1/audio/speech') return 'speech';
    if (path === '/v1/audio/transcriptions') return 'transcription';
    if (path === '/v1/audio/translations') return 'translation';
    return undefined;
  },
  respond(req, res, context) {
    if (res.destroyed) return;
    if (context.kind === 'speech') return speech(res, context);
    return transcription(context.kind, context);
  },
};
