import { RelayError } from '../errors.js';
import { requestBounds } from '../request-bounds.js';
import { modelOf } from './model-field.js';
import { passthrough } from './openai-passthrough.js';
import type { Delivered, OperationDefinition } from './types.js';
import type { Usage } from '../providers/types.js';

/** OpenAI's bound on a speech `input`, in characters. */
export const MAX_SPEECH_CHARACTERS = 4096;
/** The audio formats OpenAI's speech API produces. */
export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
/** How the answer comes: raw audio, or OpenAI's SSE events carrying it (gpt-4o-mini-tts). Either is piped as bytes. */
const STREAM_FORMATS = ['audio', 'sse'];
const MIN_SPEED = 0.25;
const MAX_SPEED = 4;

function invalid(param: string, message: string): RelayError {
  return new RelayError(400, message, 'invalid_request', 'invalid_request_error', param);
}

/** Characters as the established product counts them (Go's utf8.RuneCountInString): code points, not UTF-16 units. */
export function speechCharacters(input: string): number {
  let count = 0;
  for (const _ of input) count++;
  return count;
}

/**
 * The usage of a speech answer, by the established product's rule: prompt tokens are the
 * characters of `input` (whatever the model: tts-1, tts-1-hd, gpt-4o-mini-tts), no completion.
 * Of an answer that did not reach the client whole:
 * - with the upstream's content-length, the characters in proportion to the bytes delivered,
 *   rounded up (the client paid for the part of the audio it got);
 * - without one, all the characters: nothing says how much audio the rest was, and the upstream
 *   generated (and charged us for) all of it.
 */
export function speechUsage(characters: number, delivered: Delivered): Usage {
  let prompt = characters;
  if (!delivered.complete && delivered.total !== null && delivered.total > 0 && delivered.bytes < delivered.total) {
    prompt = Math.ceil((characters * delivered.bytes) / delivered.total);
  }
  return { prompt_tokens: prompt, completion_tokens: 0, cached_tokens: 0 };
}

/** `voice` is a built-in voice's name, or a custom voice as `{ id }` (OpenAI's newer API). */
function validVoice(voice: unknown): boolean {
  if (typeof voice === 'string') return voice.trim() !== '';
  const id = (voice as { id?: unknown } | null)?.id;
  return typeof voice === 'object' && typeof id === 'string' && id.trim() !== '';
}

/** Checks the fields a speech request must have right before anything is held; 400 naming the first bad one. */
function checkSpeech(body: Record<string, unknown>): void {
  const input = body.input;
  if (typeof input !== 'string' || input === '') throw invalid('input', 'input is required: the text to speak, a string of 1 to 4096 characters');
  if (speechCharacters(input) > MAX_SPEECH_CHARACTERS) throw invalid('input', `input must be at most ${MAX_SPEECH_CHARACTERS} characters`);
  if (!validVoice(body.voice)) throw invalid('voice', 'voice is required: the name of a voice (alloy, echo, ...) or { id } of a custom voice');
  const format = body.response_format;
  if (format !== undefined && format !== null && !(SPEECH_FORMATS as readonly unknown[]).includes(format)) {
    throw invalid('response_format', `response_format must be one of ${SPEECH_FORMATS.join(', ')}`);
  }
  const speed = body.speed;
  if (speed !== undefined && speed !== null && (typeof speed !== 'number' || !Number.isFinite(speed) || speed < MIN_SPEED || speed > MAX_SPEED)) {
    throw invalid('speed', `speed must be a number from ${MIN_SPEED} to ${MAX_SPEED}`);
  }
  const streamFormat = body.stream_format;
  if (streamFormat !== undefined && streamFormat !== null && !STREAM_FORMATS.includes(streamFormat as string)) {
    throw invalid('stream_format', `stream_format must be one of ${STREAM_FORMATS.join(', ')}`);
  }
}

/**
 * Speech (`POST /v1/audio/speech`): JSON in, audio out. Forwarded as the client sent it but for
 * the model; the audio is piped to the client as it comes (the pipeline's `bytes` path, never a
 * whole answer), and billed by the characters of `input` (speechUsage), or per call when the
 * model has a ModelPrice.
 */
export const speechOperation: OperationDefinition = {
  name: 'audio-speech',
  label: 'audio speech',
  capability: 'audio-speech',
  inspect(body) {
    const model = modelOf(body);
    checkSpeech(body);
    // The pipeline pipes the bytes; `stream` says an SSE answer of the chat kind, which this is not.
    return { model, stream: false, bounds: requestBounds('audio-speech', body) };
  },
  // The characters are the whole charge, known before the call without a tokenizer: the hold is exact.
  estimatePrompt: (body) => speechCharacters(body.input as string),
  boundPrompt: (body) => speechCharacters(body.input as string),
  upstream: (attempt, body) => ({ request: passthrough(attempt).request('/v1/audio/speech', body, attempt.context), injectedUsage: false }),
  // Characters are what speech costs; the log says so.
  price: (quote) => Object.assign({}, quote, { details: { content: 'billed by input characters', other: { speech: true } } }),
  bytes: (_body, characters, delivered) => speechUsage(characters, delivered),
};
