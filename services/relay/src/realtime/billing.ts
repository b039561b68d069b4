import { DEFAULT_AUDIO_COMPLETION_RATIO, lookupRate, quotaForUsage, type UsageRecord } from '@aigw/contracts';
import type { OptionsMirror } from '@aigw/platform';
import { charge, quotePrice, type PriceQuote } from '../metering.js';
import type { Usage } from '../providers/types.js';
import { usageRecord, type RecordInput } from '../relay-call.js';

/**
 * Billing of a realtime session (OpenAI's Realtime API), one charge per response: each
 * `response.done` event carries the response's usage, split into text and audio tokens, and is
 * priced by the established product's formula
 *
 *   round((text_in + text_out × CompletionRatio + audio_in × AudioRatio
 *          + audio_out × AudioRatio × AudioCompletionRatio) × ModelRatio × GroupRatio)
 *
 * computed exactly (pricing.ts, quotaForUsage), at least 1 when the model × group ratio is not
 * zero and tokens were used; cached input tokens weigh CacheRatio times their kind's weight, as
 * for text (text first when the upstream does not split them). AudioRatio defaults to 1,
 * AudioCompletionRatio to 2. A model with a ModelPrice is charged that price per response.
 */

/** A session's price: the model's (metering.ts) and its audio ratios, read once when it starts. */
export interface RealtimeQuote extends PriceQuote {
  audioRatio: number;
  audioCompletionRatio: number;
}

/** The session's price, or null when the model has none (refused unless self-use mode). */
export function realtimeQuote(options: OptionsMirror, model: string, group: string): RealtimeQuote | null {
  const quote = quotePrice(options, model, group);
  if (!quote) return null;
  const audioRatio = lookupRate(options.get('AudioRatio'), model) ?? 1;
  const audioCompletionRatio = lookupRate(options.get('AudioCompletionRatio'), model) ?? DEFAULT_AUDIO_COMPLETION_RATIO;
  // The log row says it was a realtime response, and with which audio ratios it was priced.
  const details: PriceQuote['details'] =
    quote.pricing.kind === 'price'
      ? { content: 'realtime response', other: { ws: true } }
      : {
          content: `audio ratio ${audioRatio.toFixed(2)}, audio completion ratio ${audioCompletionRatio.toFixed(2)}`,
          other: { ws: true, audio_ratio: audioRatio, audio_completion_ratio: audioCompletionRatio },
        };
  return { ...quote, details, audioRatio, audioCompletionRatio };
}

/** One response's usage, as `response.done` reports it (counts clamped to 0..10^8). */
export interface RealtimeUsage {
  /** All input tokens: text (and image) plus audio. */
  inputTokens: number;
  /** All output tokens: text plus audio. */
  outputTokens: number;
  audioInputTokens: number;
  audioOutputTokens: number;
  /** Input tokens read from the cache (part of inputTokens). */
  cachedTokens: number;
  /** Of those, the audio ones, when the upstream says (cached_tokens_details). */
  cachedAudioTokens?: number;
}

const MAX_TOKENS = 100_000_000;

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(Math.max(Math.trunc(value), 0), MAX_TOKENS) : 0;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The usage of a `response.done` event (`response.usage`), or null when it has none. Not taken
 * on trust: negative or absurd figures are clamped, and the totals are at least their parts.
 */
export function realtimeUsageOf(event: unknown): RealtimeUsage | null {
  const usage = record(event).response === undefined ? undefined : record(record(event).response).usage;
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return null;
  const fields = usage as Record<string, unknown>;
  const input = record(fields.input_token_details);
  const output = record(fields.output_token_details);
  const cachedDetails = input.cached_tokens_details === undefined ? undefined : record(input.cached_tokens_details);
  const audioInputTokens = count(input.audio_tokens);
  const audioOutputTokens = count(output.audio_tokens);
  const inputTokens = Math.max(count(fields.input_tokens), Math.min(count(input.text_tokens) + audioInputTokens, MAX_TOKENS));
  const outputTokens = Math.max(count(fields.output_tokens), Math.min(count(output.text_tokens) + audioOutputTokens, MAX_TOKENS));
  return {
    inputTokens,
    outputTokens,
    audioInputTokens,
    audioOutputTokens,
    cachedTokens: Math.min(count(input.cached_tokens), inputTokens),
    ...(cachedDetails && cachedDetails.audio_tokens !== undefined ? { cachedAudioTokens: count(cachedDetails.audio_tokens) } : {}),
  };
}

/**
 * What a response without usage is billed as: PreConsumedQuota output tokens (at least one), the
 * figure held for it, since neither its text nor its audio can be counted here.
 */
export function estimatedUsage(preConsumedTokens: number): RealtimeUsage {
  const tokens = Math.min(Math.max(preConsumedTokens, 1), MAX_TOKENS);
  return { inputTokens: 0, outputTokens: tokens, audioInputTokens: 0, audioOutputTokens: 0, cachedTokens: 0 };
}

/** The usage in the pipeline's terms (prompt, completion, cached), for the usage record. */
function pipelineUsage(usage: RealtimeUsage): Usage {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, cached_tokens: usage.cachedTokens };
}

/** The charge of one response. */
export function responseCharge(quote: RealtimeQuote, usage: RealtimeUsage): number {
  if (quote.pricing.kind === 'price') return charge(quote, pipelineUsage(usage));
  return quotaForUsage({
    promptTokens: usage.inputTokens,
    completionTokens: usage.outputTokens,
    cachedTokens: usage.cachedTokens,
    audioPromptTokens: usage.audioInputTokens,
    audioCompletionTokens: usage.audioOutputTokens,
    ...(usage.cachedAudioTokens !== undefined ? { cachedAudioTokens: usage.cachedAudioTokens } : {}),
    modelRatio: quote.pricing.modelRatio,
    completionRatio: quote.completionRatio,
    cacheRatio: quote.cacheRatio,
    groupRatio: quote.groupRatio,
    audioRatio: quote.audioRatio,
    audioCompletionRatio: quote.audioCompletionRatio,
  });
}

/**
 * The usage record of one response (relay-call.ts's, plus the realtime part of `other`: `ws`,
 * `audio` when audio tokens were used, and the text and audio token counts).
 */
export function responseRecord(input: Omit<RecordInput, 'usage' | 'stream'>, usage: RealtimeUsage): UsageRecord {
  const base = usageRecord({ ...input, stream: true, usage: pipelineUsage(usage) });
  const audio = usage.audioInputTokens > 0 || usage.audioOutputTokens > 0;
  return {
    ...base,
    other: {
      ...base.other,
      ws: true,
      ...(audio ? { audio: true } : {}),
      text_input: usage.inputTokens - usage.audioInputTokens,
      text_output: usage.outputTokens - usage.audioOutputTokens,
      audio_input: usage.audioInputTokens,
      audio_output: usage.audioOutputTokens,
    },
  };
}

/** The record a hold's sweeper publishes should this relay die mid-session: nothing charged. */
export function unbilledRecord(input: Omit<RecordInput, 'usage' | 'stream' | 'quota'>): UsageRecord {
  return usageRecord({ ...input, stream: true, quota: 0, usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 } });
}
