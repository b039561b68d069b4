import { z } from 'zod';
import { RelayError } from '../errors.js';
import { requestBounds } from '../request-bounds.js';
import { countText } from '../tokenizer/index.js';
import { modelOf } from './model-field.js';
import { passthrough } from './openai-passthrough.js';
import type { Attempt, OperationDefinition, UpstreamAnswer } from './types.js';
import type { Usage } from '../providers/types.js';
// Type only: routes/uploads.ts imports the operations, so a value import would be a cycle.
import type { UploadedFile } from '../routes/uploads.js';

/** The answer formats of OpenAI's transcription and translation APIs. */
export const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type TranscriptionFormat = (typeof TRANSCRIPTION_FORMATS)[number];

/** One minute of audio is 1,000 tokens (the established product's rule). */
const TOKENS_PER_MINUTE = 1000;
/**
 * The lowest bitrate the hold assumes: 16 kbit/s, 2,000 bytes a second. Audio at this bitrate or
 * more lasts at most bytes / 2000 seconds, so the hold covers its duration; speech compressed
 * harder (8 kbit/s Opus) can last longer, and is then charged its full duration at settlement
 * (beyond the hold, as any answer longer than its estimate).
 */
export const MIN_AUDIO_BYTES_PER_SECOND = 2000;
const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

function invalid(param: string, message: string): RelayError {
  return new RelayError(400, message, 'invalid_request', 'invalid_request_error', param);
}

/** Tokens of `seconds` of audio: whole seconds (rounded up), 1,000 a minute, rounded up. */
export function durationTokens(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.ceil((Math.ceil(seconds) * TOKENS_PER_MINUTE) / 60);
}

/** The hold of an upload of `bytes`: the duration rule applied to the longest audio it can be at 16 kbit/s or more. */
export function uploadHoldTokens(bytes: number): number {
  return durationTokens(bytes / MIN_AUDIO_BYTES_PER_SECOND);
}

const durationUsage = (seconds: number): Usage => ({ prompt_tokens: durationTokens(seconds), completion_tokens: 0, cached_tokens: 0 });

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : undefined));
const usageSchema = z.object({
  type: z.string().nullish(),
  seconds: count,
  input_tokens: count,
  output_tokens: count,
  // Upstreams that report usage in chat's shape.
  prompt_tokens: count,
  completion_tokens: count,
});
const answerSchema = z.object({ usage: z.unknown().optional(), duration: count, text: z.unknown().optional() });

/** OpenAI's `usage` of a transcription: tokens (gpt-4o-transcribe), duration (whisper-1), or chat's shape; null when none. */
function reportedUsage(value: unknown): Usage | null {
  const parsed = usageSchema.safeParse(value);
  if (!parsed.success) return null;
  const usage = parsed.data;
  const prompt = usage.input_tokens ?? usage.prompt_tokens;
  const completion = usage.output_tokens ?? usage.completion_tokens;
  const tokens = prompt !== undefined || completion !== undefined;
  if (usage.type === 'duration' || (!tokens && usage.seconds !== undefined)) return usage.seconds !== undefined ? durationUsage(usage.seconds) : null;
  return tokens ? { prompt_tokens: prompt ?? 0, completion_tokens: completion ?? 0, cached_tokens: 0 } : null;
}

/**
 * The usage a JSON transcription answer says: its `usage` when it has one, else the `duration`
 * of a verbose_json answer (durationTokens); null when it says neither.
 */
export function transcriptionUsage(json: unknown): Usage | null {
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) return null;
  const usage = parsed.data.usage !== undefined && parsed.data.usage !== null ? reportedUsage(parsed.data.usage) : null;
  if (usage) return usage;
  return parsed.data.duration !== undefined ? durationUsage(parsed.data.duration) : null;
}

const cueTime = String.raw`((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})`;
const cueTiming = new RegExp(`${cueTime}[ \\t]*-->[ \\t]*${cueTime}`, 'g');

function seconds(time: string): number {
  const parts = time.replace(',', '.').split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

/** The end of the last cue of an SRT or WebVTT text, in seconds; null when it has no cue. */
export function subtitleSeconds(text: string): number | null {
  let end: number | null = null;
  for (const match of text.matchAll(cueTiming)) {
    const at = seconds(match[2]!);
    if (Number.isFinite(at) && (end === null || at > end)) end = at;
  }
  return end;
}

/** With no usage and no duration: the returned text's tokens, as completion tokens. */
export function textUsage(text: string, model: string): Usage {
  return { prompt_tokens: 0, completion_tokens: countText(text, model), cached_tokens: 0 };
}

function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).data) && typeof (value as UploadedFile).filename === 'string';
}

/** The format the client asked for (OpenAI's default: json). */
function formatOf(body: Record<string, unknown>): TranscriptionFormat {
  return (body.response_format as TranscriptionFormat | undefined) ?? 'json';
}

function checkUpload(body: Record<string, unknown>, label: string): void {
  if (!isUploadedFile(body.file)) throw invalid('file', `file is required: the audio for ${label}, as one multipart file`);
  const format = body.response_format;
  if (format !== undefined && !(TRANSCRIPTION_FORMATS as readonly unknown[]).includes(format)) {
    throw invalid('response_format', `response_format must be one of ${TRANSCRIPTION_FORMATS.join(', ')}`);
  }
  // OpenAI's streamed transcription (SSE `transcript.text.delta` events) is not relayed yet.
  if (body.stream !== undefined && body.stream !== 'false') {
    throw invalid('stream', `stream is not supported yet for ${label}: leave it out or send false`);
  }
}

function isJson(contentType: string): boolean {
  return /\bjson\b/i.test(contentType);
}

const isJsonFormat = (format: TranscriptionFormat) => format === 'json' || format === 'verbose_json';

/**
 * The form for the upstream: every field as the client sent it but for the model (the
 * channel's), repeated fields (`timestamp_granularities[]`, `include[]`) repeated, files as files.
 * A `text` answer is asked for as `json`, which carries the upstream's usage (whisper-1's
 * duration, gpt-4o-transcribe's tokens, and gpt-4o-transcribe answers nothing but json): the
 * client still gets text (transcriptionAnswer).
 */
export function transcriptionForm(body: Record<string, unknown>, upstreamModel: string): FormData {
  const form = new FormData();
  form.append('model', upstreamModel);
  const append = (name: string, value: unknown) => {
    if (isUploadedFile(value)) form.append(name, new Blob([value.data], { type: value.contentType }), value.filename);
    else form.append(name, String(value));
  };
  for (const [name, value] of Object.entries(body)) {
    if (name === 'model') continue;
    if (name === 'response_format' && value === 'text') append(name, 'json');
    else if (Array.isArray(value)) for (const item of value) append(`${name}[]`, item);
    else append(name, value);
  }
  return form;
}

/** The client's answer and its usage, from the upstream's (see transcriptionUsage, subtitleSeconds, textUsage). */
export function transcriptionAnswer(
  upstream: UpstreamAnswer,
  format: TranscriptionFormat,
  model: string,
): { body: unknown; contentType?: string; usage: Usage; counted: boolean } {
  if (isJsonFormat(format) || (format === 'text' && isJson(upstream.contentType))) {
    const json = upstream.json();
    const text = (json as { text?: unknown } | null)?.text;
    if (format === 'text' && typeof text !== 'string') {
      throw new RelayError(502, 'the upstream answered a transcription without its text', 'bad_upstream_response', 'upstream_error');
    }
    const reported = transcriptionUsage(json);
    const usage = reported ?? textUsage(typeof text === 'string' ? text : '', model);
    const counted = reported === null;
    // OpenAI's text answer is the transcript and a newline.
    return format === 'text' ? { body: `${text as string}\n`, contentType: TEXT_CONTENT_TYPE, usage, counted } : { body: json, usage, counted };
  }
  const duration = format === 'text' ? null : subtitleSeconds(upstream.text);
  // The text's tokens; its closing newline is the format's, not the transcript's.
  const usage = duration !== null ? durationUsage(duration) : textUsage(format === 'text' ? upstream.text.trimEnd() : upstream.text, model);
  return { body: upstream.text, contentType: upstream.contentType || TEXT_CONTENT_TYPE, usage, counted: duration === null };
}

/**
 * Transcription and translation (`POST /v1/audio/transcriptions`, `/v1/audio/translations`):
 * a multipart upload forwarded as a form (the provider's `passthrough.form`), the answer in the
 * format asked for. Billed (the established product's rules): the upstream's usage when it
 * reports one; else a duration (verbose_json's `duration`, or the end of the last SRT/VTT cue)
 * at 1,000 prompt tokens a minute; else the tokens of the returned text as completion tokens.
 * The hold assumes the upload is audio of at least 16 kbit/s (uploadHoldTokens).
 */
function uploadOperation(
  path: '/v1/audio/transcriptions' | '/v1/audio/translations',
  name: 'audio-transcriptions' | 'audio-translations',
  label: string,
): OperationDefinition {
  const form = (attempt: Attempt, body: Record<string, unknown>) => {
    const adapter = passthrough(attempt);
    // A provider listing an upload operation has `form` (registry.test.ts holds every provider to that).
    if (!adapter.form) throw new Error(`provider ${attempt.provider.id} lists ${label} but has no form passthrough`);
    return adapter.form(path, transcriptionForm(body, attempt.context.upstreamModel), attempt.context);
  };
  return {
    name,
    label,
    capability: name,
    inspect(body) {
      const model = modelOf(body);
      checkUpload(body, label);
      return { model, stream: false, bounds: requestBounds(name, body) };
    },
    estimatePrompt: (body) => uploadHoldTokens((body.file as UploadedFile).data.length),
    // Arithmetic on the upload's size, no tokenizer: the bound is the estimate itself.
    boundPrompt: (body) => uploadHoldTokens((body.file as UploadedFile).data.length),
    price: (quote) =>
      Object.assign({}, quote, { details: { content: 'audio billed by the usage reported, else 1,000 tokens a minute', other: { transcription: true } } }),
    upstream: (attempt, body) => ({ request: form(attempt, body), injectedUsage: false }),
    answer(attempt, upstream, body) {
      const { body: answer, contentType, usage, counted } = transcriptionAnswer(upstream, formatOf(body), attempt.context.requestedModel);
      return { body: answer, ...(contentType ? { contentType } : {}), usage, estimatedCompletion: 0, counted };
    },
  };
}

export const transcriptionsOperation = uploadOperation('/v1/audio/transcriptions', 'audio-transcriptions', 'audio transcriptions');
export const translationsOperation = uploadOperation('/v1/audio/translations', 'audio-translations', 'audio translations');
