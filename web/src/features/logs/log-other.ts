/**
 * The `other` JSON of a log row (billing details written by the relay) and the display rules of
 * docs/product.md section 9 for log rows: duration and first-token colour bands, the retry path and
 * the pay-as-you-go formula. Pure, so the rules are unit-tested without rendering.
 */
import { DEFAULT_AUDIO_COMPLETION_RATIO, logOtherSchema, quotaForCall, quotaForUsage, type LogOther } from '@aigw/contracts';

/**
 * `other` parsed with the contract's schema; an empty, broken or unexpected text gives an empty
 * object (the row still shows, without the details).
 */
export function parseOther(text: string): LogOther {
  if (!text) return {};
  try {
    const parsed = logOtherSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export type BandColor = 'green' | 'orange' | 'red';

/** docs/product.md section 9: request duration under 101 s green, under 300 s orange, else red. */
export function durationColor(seconds: number): BandColor {
  if (seconds < 101) return 'green';
  if (seconds < 300) return 'orange';
  return 'red';
}

/** docs/product.md section 9: first-token latency under 3 s green, under 10 s orange, else red. */
export function firstTokenColor(seconds: number): BandColor {
  if (seconds < 3) return 'green';
  if (seconds < 10) return 'orange';
  return 'red';
}

/** `other.frt` (ms) in seconds with one decimal, or null when unknown. */
export function firstTokenSeconds(other: LogOther): number | null {
  const frt = other.frt;
  if (typeof frt !== 'number' || !Number.isFinite(frt) || frt < 0) return null;
  return Math.round(frt / 100) / 10;
}

/** The channels tried, as "1 -> 3"; null when the row has none (user rows, old rows). */
export function retryPath(other: LogOther): string | null {
  const channels = other.admin_info?.use_channel;
  if (!Array.isArray(channels) || channels.length === 0) return null;
  return channels.join(' -> ');
}

/** How many times the relay moved on to another channel. */
export function retryCount(other: LogOther): number {
  const channels = other.admin_info?.use_channel;
  return Array.isArray(channels) && channels.length > 1 ? channels.length - 1 : 0;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A fixed-price call (model_price set and not -1). */
export function isFixedPrice(other: LogOther): boolean {
  return typeof other.model_price === 'number' && other.model_price >= 0;
}

/** docs/product.md section 1: one dollar is 500000 quota. */
export const QUOTA_PER_DOLLAR = 500_000;

/**
 * An image request priced per image (`image` with a model price): the price per image and what
 * multiplies it. A model with only a ratio is priced 0.0025 USD × its ratio per image, so
 * `modelRatio` is set then; a token-billed gpt-image request (`image` without a price) is null.
 */
export interface ImagePricing {
  /** USD per image before the multipliers: the ModelPrice, or 0.0025 when priced by ratio. */
  price: number;
  modelRatio: number | null;
  sizeRatio: number;
  qualityRatio: number;
  count: number;
}

export function imagePricing(other: LogOther): ImagePricing | null {
  if (other.image !== true || !isFixedPrice(other)) return null;
  return {
    price: other.model_price!,
    modelRatio: isNumber(other.model_ratio) ? other.model_ratio : null,
    sizeRatio: other.image_size_ratio ?? 1,
    qualityRatio: other.image_quality_ratio ?? 1,
    count: other.image_count ?? 1,
  };
}

/** Prompt tokens read from (cached) and written to (written) the provider's cache, as the relay bills them. */
export function cacheTokens(other: LogOther): { cached: number; written: number } {
  const count = (value: unknown) => (isNumber(value) && value > 0 ? value : 0);
  return { cached: count(other.cache_tokens), written: count(other.cache_creation_tokens) };
}

/**
 * The audio tokens of a row (realtime and audio models: `audio_input`, `audio_output`, with the
 * AudioRatio and AudioCompletionRatio it was priced at); null when it used none.
 */
export function audioTokens(other: LogOther): { input: number; output: number; ratio: number; completionRatio: number } | null {
  const count = (value: unknown) => (isNumber(value) && value > 0 ? value : 0);
  const input = count(other.audio_input);
  const output = count(other.audio_output);
  if (input === 0 && output === 0) return null;
  return { input, output, ratio: other.audio_ratio ?? 1, completionRatio: other.audio_completion_ratio ?? DEFAULT_AUDIO_COMPLETION_RATIO };
}

/**
 * The row's charge in quota, computed exactly as the relay does (the contracts' quotaForCall and
 * quotaForUsage: decimal arithmetic, rounded once; 500000 quota = $1):
 * - a fixed price: model price × group ratio, and for an image priced per image × (model ratio,
 *   when priced by ratio) × size ratio × quality ratio × count;
 * - pay as you go: group ratio × model ratio × (prompt − cached − written + cached × cache ratio
 *   + written × cache-write ratio + completion × completion ratio), where a realtime or audio
 *   row's audio tokens weigh audio ratio (input) and audio ratio × audio completion ratio (output)
 *   instead (its cached tokens taken as text first: the row does not say which were audio).
 * Null when the ratios it needs are missing or out of range.
 */
export function formulaQuota(other: LogOther, promptTokens: number, completionTokens: number): number | null {
  const groupRatio = other.group_ratio ?? 1;
  try {
    if (isFixedPrice(other)) {
      const image = imagePricing(other);
      const multipliers = image ? [...(image.modelRatio === null ? [] : [image.modelRatio]), image.sizeRatio, image.qualityRatio, image.count] : [];
      return quotaForCall({ modelPrice: other.model_price!, multipliers, groupRatio, quotaPerUnit: QUOTA_PER_DOLLAR });
    }
    if (!isNumber(other.model_ratio)) return null;
    const { cached, written } = cacheTokens(other);
    const audio = audioTokens(other);
    return quotaForUsage({
      ...(audio
        ? { audioPromptTokens: audio.input, audioCompletionTokens: audio.output, audioRatio: audio.ratio, audioCompletionRatio: audio.completionRatio }
        : {}),
      promptTokens,
      completionTokens,
      cachedTokens: cached,
      cacheCreationTokens: written,
      modelRatio: other.model_ratio,
      completionRatio: other.completion_ratio ?? 1,
      cacheRatio: other.cache_ratio ?? 1,
      createCacheRatio: other.cache_creation_ratio,
      groupRatio,
    });
  } catch {
    return null;
  }
}

/** formulaQuota in dollars (quota / 500000): what the row's quota says when the relay billed it. */
export function formulaCost(other: LogOther, promptTokens: number, completionTokens: number): number | null {
  const quota = formulaQuota(other, promptTokens, completionTokens);
  return quota === null ? null : quota / QUOTA_PER_DOLLAR;
}

/** A ratio or price as the details show it: up to 6 decimals, no trailing zeros. */
export function formatRatio(value: number): string {
  return String(Number(value.toFixed(6)));
}

/** Dollars with 6 decimals, as the established product prints log costs. */
export function formatDollars(value: number): string {
  return `$${value.toFixed(6)}`;
}
