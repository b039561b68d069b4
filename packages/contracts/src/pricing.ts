import { MAX_QUOTA } from './billing.js';

/**
 * Price helpers (docs/compatibility.md sections 3.3 to 3.5; the prices shown, docs/product.md
 * section 10), pure functions over the option maps.
 *
 * Arithmetic: every input is bounded (tokens are integers up to 10^8, ratios and prices finite,
 * non-negative, at most 10^6), invalid ones throw a RangeError, and every result is a non-negative
 * safe integer clamped to MAX_QUOTA, so no input can wrap a charge or turn it negative (rule R7).
 * The formulas are evaluated EXACTLY: each ratio is read as the decimal its shortest representation
 * shows (what the admin typed: 1.25, 0.075), the products are computed on BigInt fractions, and the
 * result is rounded half away from zero once, at the end, as the established product does with
 * decimal arithmetic. Floating point would be off by one unit for some inputs that land next to .5
 * (e.g. 0.075 is not exact in binary).
 */

export const MAX_TOKENS = 100_000_000;
export const MAX_RATIO = 1_000_000;
/** The most answers one request may ask the upstream for (n × prompts of a batch), for the hold. */
export const MAX_ANSWERS = 1_000_000;
/** The ratio unpriced models get in self-use mode (the established product's default). */
export const SELF_USE_MODEL_RATIO = 37.5;

export type RateMap = Readonly<Record<string, number>>;

/** Exact name first, then the longest `prefix*` entry the name starts with (`gpt-4-gizmo-*`). */
export function lookupRate(map: RateMap, model: string): number | undefined {
  if (Object.hasOwn(map, model)) return map[model];
  let best: { length: number; value: number } | undefined;
  for (const [key, value] of Object.entries(map)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, value };
  }
  return best?.value;
}

/**
 * How a model is priced. A per-call price may carry multipliers, multiplied exactly with it: an
 * image request's size, quality and count (docs/compatibility.md section 3.5).
 */
export type ModelPricing = { kind: 'price'; modelPrice: number; multipliers?: readonly number[] } | { kind: 'ratio'; modelRatio: number };

/** Per-call price first, else the ratio; unknown → null (refused) unless self-use mode (ratio 37.5). */
export function modelPricing(maps: { ModelPrice: RateMap; ModelRatio: RateMap }, model: string, selfUseMode: boolean): ModelPricing | null {
  const price = lookupRate(maps.ModelPrice, model);
  if (price !== undefined) return { kind: 'price', modelPrice: price };
  const ratio = lookupRate(maps.ModelRatio, model);
  if (ratio !== undefined) return { kind: 'ratio', modelRatio: ratio };
  return selfUseMode ? { kind: 'ratio', modelRatio: SELF_USE_MODEL_RATIO } : null;
}

/**
 * Built-in completion ratios per model family (docs/compatibility.md section 3.3), used when the
 * CompletionRatio option has no entry: the option's defaults do not list these families, and
 * billing completions of gpt-4o at the prompt price would undercharge fourfold. First match wins.
 */
const familyCompletionRatios: Array<[prefix: string, ratio: number]> = [
  ['gpt-4o', 4],
  ['gpt-4-turbo', 3],
  ['gpt-4.5', 2],
  ['gpt-4', 2],
  ['gpt-3.5-turbo', 3],
  ['o1', 4],
  ['o3', 4],
  ['claude-3', 5],
  ['gemini', 4],
  ['deepseek-chat', 4],
  ['deepseek-reasoner', 4],
  ['mistral', 3],
];

/** The option (exact, then wildcard) wins; then the family rules; else 1. */
export function completionRatio(map: RateMap, model: string): number {
  return lookupRate(map, model) ?? familyCompletionRatios.find(([prefix]) => model.startsWith(prefix))?.[1] ?? 1;
}

/** Price multiplier of cached prompt tokens; 1 (full price) when not configured. */
export function cacheRatio(map: RateMap, model: string): number {
  return lookupRate(map, model) ?? 1;
}

/** Anthropic's price of writing the prompt cache (5-minute entries): 1.25 times the input price. */
export const DEFAULT_CREATE_CACHE_RATIO = 1.25;

/** The multiplier of prompt tokens written to the provider's cache (CreateCacheRatio); 1.25 when the map has none. */
export function createCacheRatio(map: RateMap, model: string): number {
  return lookupRate(map, model) ?? DEFAULT_CREATE_CACHE_RATIO;
}

/** The group's multiplier; 1 when the group has none (the relay refuses unknown token groups before). */
export function groupRatio(map: RateMap, group: string): number {
  return Object.hasOwn(map, group) ? map[group]! : 1;
}

export interface UsageInput {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the upstream's prompt cache (part of promptTokens). */
  cachedTokens: number;
  /** Prompt tokens written to the upstream's prompt cache (part of promptTokens; Anthropic reports them). */
  cacheCreationTokens?: number;
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  /** The multiplier of cacheCreationTokens (CreateCacheRatio); needed when there are any. */
  createCacheRatio?: number;
  groupRatio: number;
}

/**
 * round(((prompt − cached − written) + cached × cacheRatio + written × createCacheRatio + completion × completionRatio)
 * × modelRatio × groupRatio); 0 when no tokens were used; at least 1 when the model × group ratio
 * is not zero. Cached and written tokens beyond the prompt tokens count as prompt tokens (an
 * upstream cannot cache more than it read).
 */
export function quotaForUsage(input: UsageInput): number {
  const prompt = tokens(input.promptTokens, 'promptTokens');
  const cached = Math.min(tokens(input.cachedTokens, 'cachedTokens'), prompt);
  const written = Math.min(tokens(input.cacheCreationTokens ?? 0, 'cacheCreationTokens'), prompt - cached);
  return usageQuota(input, prompt, integer(tokens(input.completionTokens, 'completionTokens')), cached, written);
}

/** quotaForUsage's formula, with the completion tokens exact (a product beyond MAX_TOKENS for a hold). */
function usageQuota(
  ratios: Omit<UsageInput, 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'cacheCreationTokens'>,
  prompt: number,
  completion: Fraction,
  cached: number,
  written = 0,
): number {
  const model = decimal(ratios.modelRatio, 'modelRatio');
  const group = decimal(ratios.groupRatio, 'groupRatio');
  const cache = decimal(ratios.cacheRatio, 'cacheRatio');
  const completionWeight = decimal(ratios.completionRatio, 'completionRatio');
  if (prompt === 0 && completion.n === 0n) return 0;
  let weighted = add(add(integer(prompt - cached - written), mul(integer(cached), cache)), mul(completion, completionWeight));
  if (written > 0) weighted = add(weighted, mul(integer(written), decimal(ratios.createCacheRatio ?? DEFAULT_CREATE_CACHE_RATIO, 'createCacheRatio')));
  const quota = roundClamped(mul(mul(weighted, model), group));
  return quota === 0 && model.n !== 0n && group.n !== 0n ? 1 : quota;
}

/** A per-call price: round(price × multipliers × QuotaPerUnit × groupRatio), the product exact. */
export function quotaForCall(input: { modelPrice: number; groupRatio: number; quotaPerUnit: number; multipliers?: readonly number[] }): number {
  let price = decimal(input.modelPrice, 'modelPrice');
  for (const multiplier of input.multipliers ?? []) price = mul(price, decimal(multiplier, 'multiplier'));
  const perUnit = decimal(input.quotaPerUnit, 'quotaPerUnit', 1_000_000_000);
  return roundClamped(mul(mul(price, perUnit), decimal(input.groupRatio, 'groupRatio')));
}

export interface ReservationInput {
  pricing: ModelPricing;
  groupRatio: number;
  quotaPerUnit: number;
  promptTokens: number;
  /** max_tokens (or max_completion_tokens) of the request; 0 or absent when it gave none. */
  maxTokens?: number;
  /** The PreConsumedQuota option: tokens held when the request gives no max_tokens. */
  preConsumedTokens: number;
  completionRatio: number;
  /**
   * How many answers the upstream generates and bills (n, best_of, the prompts of a batch); the
   * completion part is held that many times. 1 when absent.
   */
  answers?: number;
}

/**
 * What to hold before forwarding. A per-call price is charged in full (once, whatever the answers:
 * it is the price of the call). Without max_tokens: PreConsumedQuota tokens per answer at the model
 * × group ratio (as the established product does, docs/compatibility.md section 3.4). With
 * max_tokens: the prompt plus max_tokens × answers priced as completion, i.e. the most the request
 * can cost (the established product leaves the completion ratio out here, which under-holds and
 * invites overdrafts). The product is exact and the result saturates at MAX_QUOTA (rule R7).
 */
export function reservationFor(input: ReservationInput): number {
  const { pricing } = input;
  if (pricing.kind === 'price') {
    return quotaForCall({ modelPrice: pricing.modelPrice, multipliers: pricing.multipliers, groupRatio: input.groupRatio, quotaPerUnit: input.quotaPerUnit });
  }
  const maxTokens = tokens(input.maxTokens ?? 0, 'maxTokens');
  const answers = input.answers ?? 1;
  if (!Number.isSafeInteger(answers) || answers < 1 || answers > MAX_ANSWERS)
    throw new RangeError(`answers must be an integer from 1 to ${MAX_ANSWERS}, got ${answers}`);
  const ratios = { modelRatio: pricing.modelRatio, cacheRatio: 1, groupRatio: input.groupRatio };
  if (maxTokens === 0) {
    const preConsumed = tokens(input.preConsumedTokens, 'preConsumedTokens');
    return usageQuota({ ...ratios, completionRatio: 1 }, 0, mul(integer(preConsumed), integer(answers)), 0);
  }
  return usageQuota(
    { ...ratios, completionRatio: input.completionRatio },
    tokens(input.promptTokens, 'promptTokens'),
    mul(integer(maxTokens), integer(answers)),
    0,
  );
}

/** The largest payable money of one online top-up order (in the gateway's currency). */
export const MAX_TOPUP_MONEY = 1_000_000_000_000;

export interface TopUpQuoteInput {
  /** What the user typed: whole USD units of quota, or quota units when `displayInCurrency` is off. */
  amount: number;
  displayInCurrency: boolean;
  quotaPerUnit: number;
  /** The Price option: money per 1 USD of quota. */
  price: number;
  /** TopupGroupRatio of the user's group. */
  groupRatio: number;
}

export interface TopUpQuote {
  /** Quota credited once the order is paid. */
  quota: number;
  /** Money payable, exactly 2 decimals (`'14.60'`). */
  money: string;
  /** The same in hundredths, for comparisons. */
  cents: number;
}

/**
 * An online top-up (docs/compatibility.md section 6): money = units × Price × TopupGroupRatio,
 * rounded half up to 2 decimals, where units = amount (or amount / QuotaPerUnit when currency
 * display is off); the quota credited is amount × QuotaPerUnit (or the amount itself). Exact, like
 * the usage formulas: 14.6 is 1460 hundredths, never 14.599999. Throws a RangeError naming the
 * input when it is out of range (amount not a positive integer, a result above MAX_QUOTA or
 * MAX_TOPUP_MONEY).
 */
export function topUpQuote(input: TopUpQuoteInput): TopUpQuote {
  if (!Number.isSafeInteger(input.amount) || input.amount < 1 || input.amount > MAX_QUOTA) {
    throw new RangeError(`amount must be an integer from 1 to ${MAX_QUOTA}, got ${input.amount}`);
  }
  const amount = integer(input.amount);
  const perUnit = decimal(input.quotaPerUnit, 'quotaPerUnit', 1_000_000_000);
  if (perUnit.n === 0n) throw new RangeError('quotaPerUnit must be above 0');
  const units = input.displayInCurrency ? amount : { n: amount.n * perUnit.d, d: perUnit.n };
  const quota = input.displayInCurrency ? roundHalfUp(mul(amount, perUnit)) : amount.n;
  if (quota > BigInt(MAX_QUOTA)) throw new RangeError(`amount is too large: the quota would exceed ${MAX_QUOTA}`);
  const money = mul(mul(units, decimal(input.price, 'price')), decimal(input.groupRatio, 'groupRatio'));
  const cents = roundHalfUp(mul(money, integer(100)));
  if (cents > BigInt(MAX_TOPUP_MONEY) * 100n) throw new RangeError(`amount is too large: the money would exceed ${MAX_TOPUP_MONEY}`);
  return { quota: Number(quota), money: `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`, cents: Number(cents) };
}

// ---- exact arithmetic on non-negative fractions n / d (d a power of ten or a product of them)

interface Fraction {
  n: bigint;
  d: bigint;
}

function tokens(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TOKENS) throw new RangeError(`${what} must be an integer from 0 to ${MAX_TOKENS}, got ${value}`);
  return value;
}

function integer(value: number): Fraction {
  return { n: BigInt(value), d: 1n };
}

/** The decimal a finite number prints as (1.25 → 125/100, 1e-7 → 1/10^7). */
function decimal(value: number, what: string, max = MAX_RATIO): Fraction {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    throw new RangeError(`${what} must be a finite number from 0 to ${max}, got ${value}`);
  }
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value))!;
  const fraction = match[2] ?? '';
  const scale = fraction.length - Number(match[3] ?? 0);
  const digits = BigInt(match[1]! + fraction);
  return scale >= 0 ? { n: digits, d: 10n ** BigInt(scale) } : { n: digits * 10n ** BigInt(-scale), d: 1n };
}

function mul(a: Fraction, b: Fraction): Fraction {
  return { n: a.n * b.n, d: a.d * b.d };
}

function add(a: Fraction, b: Fraction): Fraction {
  return a.d === b.d ? { n: a.n + b.n, d: a.d } : { n: a.n * b.d + b.n * a.d, d: a.d * b.d };
}

/** Half away from zero (all values are non-negative). */
function roundHalfUp(value: Fraction): bigint {
  return (2n * value.n + value.d) / (2n * value.d);
}

/** Half away from zero, then clamped to MAX_QUOTA. */
function roundClamped(value: Fraction): number {
  const rounded = roundHalfUp(value);
  return rounded > BigInt(MAX_QUOTA) ? MAX_QUOTA : Number(rounded);
}
