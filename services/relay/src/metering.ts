import {
  cacheRatio,
  completionRatio,
  createCacheRatio,
  groupRatio,
  modelPricing,
  quotaForCall,
  quotaForUsage,
  reservationFor,
  type ModelPricing,
} from '@aigw/contracts';
import type { OptionsMirror } from '@aigw/platform';
import type { Usage } from './providers/types.js';

/** Everything that prices one request, read once from the options when it starts. */
export interface PriceQuote {
  pricing: ModelPricing;
  groupRatio: number;
  completionRatio: number;
  cacheRatio: number;
  createCacheRatio: number;
  quotaPerUnit: number;
  /**
   * What an operation's own price adds to the log row (an image request's size and quality
   * multipliers): merged into `other`, and `content` appended to its content line.
   */
  details?: { content: string; other: Record<string, number | boolean> };
  /**
   * `priceDetails`' text, made once for the request's records (the hold's, the first call's, the
   * last). Kept on the quote, not in a WeakMap keyed by it: V8's young-generation collections keep
   * a WeakMap's values alive, so every request's text was promoted (docs/architecture.md section
   * 5). A copied quote (an operation's own price) finds it made for another and makes its own.
   */
  priced?: { quote: PriceQuote; details: PriceDetails };
}

/** The request's price, or null when the model has no price (refused unless self-use mode). */
export function quotePrice(options: OptionsMirror, model: string, group: string): PriceQuote | null {
  const pricing = modelPricing({ ModelPrice: options.get('ModelPrice'), ModelRatio: options.get('ModelRatio') }, model, options.get('SelfUseModeEnabled'));
  if (!pricing) return null;
  return {
    pricing,
    groupRatio: groupRatio(options.get('GroupRatio'), group),
    completionRatio: completionRatio(options.get('CompletionRatio'), model),
    cacheRatio: cacheRatio(options.get('CacheRatio'), model),
    createCacheRatio: createCacheRatio(options.get('CreateCacheRatio'), model),
    quotaPerUnit: options.get('QuotaPerUnit'),
    priced: undefined,
  };
}

/**
 * What to hold before forwarding: the prompt plus the most the answers may cost (max_tokens, or
 * PreConsumedQuota tokens when the request gives none, at the completion price, times the
 * answers the upstream generates: n, best_of, a prompt batch); a per-call price in full.
 * Saturates at MAX_QUOTA, whatever the figures.
 */
export function reservation(quote: PriceQuote, promptTokens: number, maxTokens: number, preConsumedTokens: number, answers = 1): number {
  return reservationFor({
    pricing: quote.pricing,
    groupRatio: quote.groupRatio,
    quotaPerUnit: quote.quotaPerUnit,
    completionRatio: quote.completionRatio,
    promptTokens,
    maxTokens: maxTokens > 0 ? maxTokens : Math.max(preConsumedTokens, 1),
    preConsumedTokens,
    answers,
  });
}

/** The charge for what was used. A per-call price is charged once the call succeeded. */
export function charge(quote: PriceQuote, usage: Usage): number {
  const { pricing } = quote;
  if (pricing.kind === 'price') {
    return quotaForCall({ modelPrice: pricing.modelPrice, multipliers: pricing.multipliers, groupRatio: quote.groupRatio, quotaPerUnit: quote.quotaPerUnit });
  }
  return quotaForUsage({
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedTokens: usage.cached_tokens,
    cacheCreationTokens: usage.cache_creation_tokens ?? 0,
    modelRatio: pricing.modelRatio,
    completionRatio: quote.completionRatio,
    cacheRatio: quote.cacheRatio,
    createCacheRatio: quote.createCacheRatio,
    groupRatio: quote.groupRatio,
  });
}

type PriceDetails = { content: string; other: Readonly<Record<string, number | boolean>> };

/** The log row's content line and the pricing part of `other` (read-only: callers spread it). */
export function priceDetails(quote: PriceQuote): PriceDetails {
  if (quote.priced?.quote === quote) return quote.priced.details;
  const base = basePriceDetails(quote);
  const details = quote.details ? { content: `${base.content}, ${quote.details.content}`, other: Object.assign({}, base.other, quote.details.other) } : base;
  quote.priced = { quote, details };
  return details;
}

/** Two decimals, as the established product writes prices, or all of them below a cent (0.0025, not 0.00). */
function priceText(price: number): string {
  return price >= 0.01 || price === 0 ? price.toFixed(2) : String(price);
}

function basePriceDetails(quote: PriceQuote): { content: string; other: Record<string, number> } {
  if (quote.pricing.kind === 'price') {
    return {
      content: `model price ${priceText(quote.pricing.modelPrice)}, group ratio ${quote.groupRatio.toFixed(2)}`,
      other: { model_price: quote.pricing.modelPrice, group_ratio: quote.groupRatio },
    };
  }
  return {
    content: `model ratio ${quote.pricing.modelRatio.toFixed(2)}, completion ratio ${quote.completionRatio.toFixed(2)}, group ratio ${quote.groupRatio.toFixed(2)}`,
    other: {
      model_ratio: quote.pricing.modelRatio,
      completion_ratio: quote.completionRatio,
      group_ratio: quote.groupRatio,
      cache_ratio: quote.cacheRatio,
      model_price: -1,
    },
  };
}

/**
 * Upstream usage is not taken on trust (test U2, docs/security.md): negative or absurd figures are
 * clamped, and an explicit zero is honoured, never replaced by an estimate.
 */
export function saneUsage(usage: Usage): Usage {
  const clamp = (value: number) => (Number.isFinite(value) ? Math.min(Math.max(Math.trunc(value), 0), 100_000_000) : 0);
  const prompt = clamp(usage.prompt_tokens);
  const cached = Math.min(clamp(usage.cached_tokens), prompt);
  const sane: Usage = { prompt_tokens: prompt, completion_tokens: clamp(usage.completion_tokens), cached_tokens: cached };
  if (usage.cache_creation_tokens) sane.cache_creation_tokens = Math.min(clamp(usage.cache_creation_tokens), prompt - cached);
  return sane;
}
