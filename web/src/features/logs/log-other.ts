/**
 * The `other` JSON of a log row (billing details written by the relay) and the display rules of
 * docs/product.md section 9 for log rows: duration and first-token colour bands, the retry path and
 * the pay-as-you-go formula. Pure, so the rules are unit-tested without rendering.
 */
import { logOtherSchema, type LogOther } from '@aigw/contracts';

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

/** A fixed-price call (model_price set and not -1). */
export function isFixedPrice(other: LogOther): boolean {
  return typeof other.model_price === 'number' && other.model_price >= 0;
}

/** docs/product.md section 1: one dollar is 500000 quota. */
export const QUOTA_PER_DOLLAR = 500_000;

/**
 * The pay-as-you-go cost in dollars (docs/product.md section 9): group ratio x model ratio x
 * (prompt + completion x completion ratio) / 500000; a fixed-price call costs model price x group
 * ratio. Null when the ratios it needs are missing.
 */
export function formulaCost(other: LogOther, promptTokens: number, completionTokens: number): number | null {
  const groupRatio = other.group_ratio ?? 1;
  if (isFixedPrice(other)) return other.model_price! * groupRatio;
  if (typeof other.model_ratio !== 'number') return null;
  const completionRatio = other.completion_ratio ?? 1;
  return (groupRatio * other.model_ratio * (promptTokens + completionTokens * completionRatio)) / QUOTA_PER_DOLLAR;
}

/** A ratio or price as the details show it: up to 6 decimals, no trailing zeros. */
export function formatRatio(value: number): string {
  return String(Number(value.toFixed(6)));
}

/** Dollars with 6 decimals, as the established product prints log costs. */
export function formatDollars(value: number): string {
  return `$${value.toFixed(6)}`;
}
