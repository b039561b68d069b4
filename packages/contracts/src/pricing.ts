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
  for (const [prefix, value] of wildcardsOf(map)) if (model.startsWith(prefix)) return value;
  return undefined;
}

/**
 * A map's `prefix*` entries, longest prefix first, found once per map: a lookup that misses (every
 * per-call price lookup of a model priced by ratio) no longer walks the whole map, which holds
 * hundreds of models on an established install. Option maps are replaced, never changed in place.
 */
const wildcards = new WeakMap<RateMap, ReadonlyArray<readonly [string, number]>>();

function wildcardsOf(map: RateMap): ReadonlyArray<readonly [string, number]> {
  let found = wildcards.get(map);
  if (!found) {
    found = Object.entries(map)
      .filter(([key]) => key.endsWith('*'))
      .map(([key, value]) => [key.slice(0, -1), value] as const)
      .sort((a, b) => b[0].length - a[0].length);
    wildcards.set(map, found);
  }
  return found;
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

/** What one unit of a model's charge is: tokens, images, characters of speech input, or minutes of audio. */
export type ChargeUnit = 'token' | 'image' | 'character' | 'audio_minute';

/**
 * A model's unit of charge by its family (what the console's pricing page shows per unit). The name
 * is read lowercased, without a vendor prefix (`black-forest-labs/FLUX.1-schnell` is `flux.1-schnell`):
 * - `dall-e-*`, `gpt-image-*`, `imagen-*`, `flux*`, `cogview*`, `kolors*` → 'image' (priced per image,
 *   docs/compatibility.md section 3.5); but a gpt-image model billed by ratio (`quotaType` 0, no
 *   ModelPrice) is billed by the tokens it reports, so it stays 'token' (as the relay's images do);
 * - `tts-*`, `*-tts*` → 'character' (speech: the prompt tokens are the input's characters);
 * - `whisper-*`, `*-transcribe*` → 'audio_minute' (transcription: 1,000 tokens a minute of audio when
 *   billed by duration);
 * - everything else → 'token'.
 * A fixed price (`quotaType` 1) of a speech or transcription model is per call; the unit still names the family.
 */
export function chargeUnitOf(model: string, quotaType?: 0 | 1): ChargeUnit {
  const name = model.trim().toLowerCase().split('/').pop() ?? '';
  if (name.startsWith('gpt-image-')) return quotaType === 0 ? 'token' : 'image';
  if (['dall-e-', 'imagen-', 'flux', 'cogview', 'kolors'].some((prefix) => name.startsWith(prefix))) return 'image';
  if (name.startsWith('tts-') || name.includes('-tts')) return 'character';
  if (name.startsWith('whisper-') || name.includes('-transcribe')) return 'audio_minute';
  return 'token';
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
  /** Audio prompt tokens (part of promptTokens; realtime and audio models), billed at audioRatio instead of 1. */
  audioPromptTokens?: number;
  /** Audio completion tokens (part of completionTokens), billed at audioRatio × audioCompletionRatio instead of completionRatio. */
  audioCompletionTokens?: number;
  /** Of cachedTokens, the audio ones (billed at audioRatio × cacheRatio); when absent, cached tokens are text first. */
  cachedAudioTokens?: number;
  /** The AudioRatio of the model (1 when absent). */
  audioRatio?: number;
  /** The AudioCompletionRatio of the model (2 when absent). */
  audioCompletionRatio?: number;
}

/** Audio output over audio input when AudioCompletionRatio has no entry (the established product's default). */
export const DEFAULT_AUDIO_COMPLETION_RATIO = 2;

/** The audio part of a usage: prompt tokens (`cached` of them read from the cache) and completion tokens. */
interface AudioTokens {
  prompt: number;
  cached: number;
  completion: number;
}

const NO_AUDIO: AudioTokens = { prompt: 0, cached: 0, completion: 0 };

/**
 * round(((prompt − cached − written) + cached × cacheRatio + written × createCacheRatio + completion × completionRatio)
 * × modelRatio × groupRatio); 0 when no tokens were used; at least 1 when the model × group ratio
 * is not zero. Cached and written tokens beyond the prompt tokens count as prompt tokens (an
 * upstream cannot cache more than it read).
 *
 * Audio (realtime and audio models, the established product's formula): the audio prompt tokens
 * weigh audioRatio instead of 1 (× cacheRatio when cached) and the audio completion tokens
 * audioRatio × audioCompletionRatio instead of completionRatio; the text ones are the rest of
 * each. Without cachedAudioTokens the cached tokens are taken as text first. Audio beyond the
 * prompt or completion tokens counts as that many (an upstream cannot say more audio than tokens).
 */
export function quotaForUsage(input: UsageInput): number {
  const prompt = tokens(input.promptTokens, 'promptTokens');
  const completion = tokens(input.completionTokens, 'completionTokens');
  const cached = Math.min(tokens(input.cachedTokens, 'cachedTokens'), prompt);
  const audioPrompt = Math.min(tokens(input.audioPromptTokens ?? 0, 'audioPromptTokens'), prompt);
  const audioCompletion = Math.min(tokens(input.audioCompletionTokens ?? 0, 'audioCompletionTokens'), completion);
  const textPrompt = prompt - audioPrompt;
  const cachedAudio = Math.min(
    input.cachedAudioTokens === undefined ? Math.max(cached - textPrompt, 0) : tokens(input.cachedAudioTokens, 'cachedAudioTokens'),
    audioPrompt,
    cached,
  );
  const cachedText = Math.min(cached - cachedAudio, textPrompt);
  const written = Math.min(tokens(input.cacheCreationTokens ?? 0, 'cacheCreationTokens'), textPrompt - cachedText);
  const audio = audioPrompt > 0 || audioCompletion > 0 ? { prompt: audioPrompt, cached: cachedAudio, completion: audioCompletion } : NO_AUDIO;
  return usageQuota(input, prompt, integer(completion - audioCompletion), cachedText, written, audio);
}

/**
 * quotaForUsage's formula, with the completion tokens exact (a product beyond MAX_TOKENS for a hold).
 * `prompt` counts every prompt token, `cached` the cached text ones, `completion` the text ones.
 */
function usageQuota(
  ratios: Omit<UsageInput, 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'cacheCreationTokens'>,
  prompt: number,
  completion: Fraction,
  cached: number,
  written = 0,
  audio: AudioTokens = NO_AUDIO,
): number {
  const model = decimal(ratios.modelRatio, 'modelRatio');
  const group = decimal(ratios.groupRatio, 'groupRatio');
  const cache = decimal(ratios.cacheRatio, 'cacheRatio');
  const completionWeight = decimal(ratios.completionRatio, 'completionRatio');
  if (prompt === 0 && completion.n === 0n && audio.completion === 0) return 0;
  let weighted = add(add(integer(prompt - audio.prompt - cached - written), mul(integer(cached), cache)), mul(completion, completionWeight));
  if (written > 0) weighted = add(weighted, mul(integer(written), decimal(ratios.createCacheRatio ?? DEFAULT_CREATE_CACHE_RATIO, 'createCacheRatio')));
  if (audio !== NO_AUDIO) {
    const audioWeight = decimal(ratios.audioRatio ?? 1, 'audioRatio');
    const audioCompletionWeight = decimal(ratios.audioCompletionRatio ?? DEFAULT_AUDIO_COMPLETION_RATIO, 'audioCompletionRatio');
    const audioPrompt = add(integer(audio.prompt - audio.cached), mul(integer(audio.cached), cache));
    weighted = add(weighted, mul(add(audioPrompt, mul(integer(audio.completion), audioCompletionWeight)), audioWeight));
  }
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
  // One literal, not a spread extended (`{ ...ratios, completionRatio }`): on Node 20's V8 that took
  // about 1 us a call, most of the hold's price (the relay's path, docs/architecture.md section 5).
  const ratios = { modelRatio: pricing.modelRatio, cacheRatio: 1, groupRatio: input.groupRatio, completionRatio: maxTokens === 0 ? 1 : input.completionRatio };
  if (maxTokens === 0) {
    const preConsumed = tokens(input.preConsumedTokens, 'preConsumedTokens');
    return usageQuota(ratios, 0, mul(integer(preConsumed), integer(answers)), 0);
  }
  return usageQuota(ratios, tokens(input.promptTokens, 'promptTokens'), mul(integer(maxTokens), integer(answers)), 0);
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
  readonly n: bigint;
  readonly d: bigint;
}

function tokens(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TOKENS) throw new RangeError(`${what} must be an integer from 0 to ${MAX_TOKENS}, got ${value}`);
  return value;
}

function integer(value: number): Fraction {
  return { n: BigInt(value), d: 1n };
}

/**
 * The fractions of the ratios and prices seen lately. A request prices with a handful of them, so
 * each is read from its text once rather than on every charge; fractions are never changed.
 */
const decimals = new Map<number, Fraction>();
const DECIMALS_KEPT = 1_000;

/** The decimal a finite number prints as (1.25 → 125/100, 1e-7 → 1/10^7). */
function decimal(value: number, what: string, max = MAX_RATIO): Fraction {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    throw new RangeError(`${what} must be a finite number from 0 to ${max}, got ${value}`);
  }
  let fraction = decimals.get(value);
  if (!fraction) {
    if (decimals.size >= DECIMALS_KEPT) decimals.clear();
    fraction = parseDecimal(value);
    decimals.set(value, fraction);
  }
  return fraction;
}

function parseDecimal(value: number): Fraction {
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
