import { defaultOptionValues, quotaForUsage, type OptionKey, type OptionValues } from '@aigw/contracts';
import type { OptionsMirror } from '@aigw/platform';
import { estimatedUsage, realtimeQuote, realtimeUsageOf, responseCharge, responseRecord, type RealtimeUsage } from '../src/realtime/billing.js';
import { reservation } from '../src/metering.js';
import type { Caller } from '../src/caller.js';

/** The options the relay reads, over the defaults. */
function options(overrides: Partial<OptionValues> = {}): OptionsMirror {
  const values: OptionValues = { ...defaultOptionValues(), ...overrides };
  return {
    get: <K extends OptionKey>(key: K) => values[key],
    all: () => values,
    onChange: () => undefined,
    close: async () => undefined,
  };
}

/** A response.done event with this usage. */
const done = (usage: unknown) => ({ type: 'response.done', response: { id: 'resp_1', status: 'completed', usage } });

/** OpenAI's shape of a realtime usage. */
function usage(textIn: number, audioIn: number, textOut: number, audioOut: number, cached = 0): Record<string, unknown> {
  return {
    total_tokens: textIn + audioIn + textOut + audioOut,
    input_tokens: textIn + audioIn,
    output_tokens: textOut + audioOut,
    input_token_details: { text_tokens: textIn, audio_tokens: audioIn, cached_tokens: cached },
    output_token_details: { text_tokens: textOut, audio_tokens: audioOut },
  };
}

describe('realtime billing: the established product formula, exact', () => {
  // quota = round((text_in + text_out × CR + audio_in × AR + audio_out × AR × ACR) × MR × GR)
  it.each([
    // text in, audio in, text out, audio out, MR, CR, AR, ACR (undefined: 2), GR, expected
    { textIn: 100, audioIn: 0, textOut: 50, audioOut: 0, mr: 2.5, cr: 4, ar: 20, acr: undefined, gr: 1, expected: (100 + 50 * 4) * 2.5 },
    { textIn: 10, audioIn: 2, textOut: 4, audioOut: 16, mr: 1.5, cr: 2, ar: 8, acr: undefined, gr: 1, expected: (10 + 4 * 2 + 2 * 8 + 16 * 8 * 2) * 1.5 },
    { textIn: 0, audioIn: 300, textOut: 0, audioOut: 120, mr: 2.5, cr: 4, ar: 20, acr: 2, gr: 0.5, expected: (300 * 20 + 120 * 40) * 2.5 * 0.5 },
    // gpt-4o-mini-realtime's 16.67 audio ratio: (5 + 4 + 7 × 16.67 + 3 × 16.67 × 2) × 0.3 = 225.71 × 0.3 = 67.713.
    { textIn: 5, audioIn: 7, textOut: 1, audioOut: 3, mr: 0.3, cr: 4, ar: 16.67, acr: undefined, gr: 1, expected: 68 },
    // An audio completion ratio of its own, and a fractional group ratio: 0.1 × 3 is 0.3, not 0.30000000000000004.
    { textIn: 0, audioIn: 0, textOut: 0, audioOut: 1000, mr: 0.1, cr: 1, ar: 3, acr: 1.1, gr: 1.5, expected: 495 },
    // Rounding half away from zero: 0.5 → 1; a tiny charge is at least 1.
    { textIn: 1, audioIn: 0, textOut: 0, audioOut: 0, mr: 0.5, cr: 1, ar: 1, acr: undefined, gr: 1, expected: 1 },
    { textIn: 1, audioIn: 0, textOut: 0, audioOut: 0, mr: 0.001, cr: 1, ar: 1, acr: undefined, gr: 1, expected: 1 },
    { textIn: 0, audioIn: 0, textOut: 0, audioOut: 0, mr: 2, cr: 1, ar: 10, acr: undefined, gr: 1, expected: 0 },
  ])('text $textIn/$textOut, audio $audioIn/$audioOut, MR $mr CR $cr AR $ar ACR $acr GR $gr -> $expected', (row) => {
    const mirror = options({
      ModelRatio: { 'rt-model': row.mr },
      CompletionRatio: { 'rt-model': row.cr },
      AudioRatio: { 'rt-model': row.ar },
      AudioCompletionRatio: row.acr === undefined ? {} : { 'rt-model': row.acr },
      GroupRatio: { default: row.gr },
    });
    const quote = realtimeQuote(mirror, 'rt-model', 'default')!;
    const parsed = realtimeUsageOf(done(usage(row.textIn, row.audioIn, row.textOut, row.audioOut)))!;
    expect(responseCharge(quote, parsed)).toBe(row.expected);
  });

  it('prices audio input at 1 and audio output at 2 when the options have no entry for the model', () => {
    const quote = realtimeQuote(options({ ModelRatio: { 'rt-plain': 1 }, CompletionRatio: { 'rt-plain': 3 } }), 'rt-plain', 'default')!;
    expect(quote).toMatchObject({ audioRatio: 1, audioCompletionRatio: 2 });
    // 10 + 5 × 3 + 20 × 1 + 8 × 1 × 2
    expect(responseCharge(quote, realtimeUsageOf(done(usage(10, 20, 5, 8)))!)).toBe(10 + 15 + 20 + 16);
  });

  it('takes the default audio ratios of the realtime models and wildcard entries', () => {
    const defaults = options({ ModelRatio: { 'gpt-4o-realtime-preview': 2.5 } });
    expect(realtimeQuote(defaults, 'gpt-4o-realtime-preview', 'default')).toMatchObject({ audioRatio: 20, audioCompletionRatio: 2, completionRatio: 4 });
    const wildcard = options({ ModelRatio: { 'mock-*': 1 }, AudioRatio: { 'mock-rt*': 6 } });
    expect(realtimeQuote(wildcard, 'mock-rt-1', 'default')).toMatchObject({ audioRatio: 6 });
    expect(realtimeQuote(wildcard, 'unpriced-model', 'default')).toBeNull();
  });

  it('bills cached input at the cache ratio, text first unless the upstream splits them', () => {
    const mirror = options({
      ModelRatio: { 'rt-cache': 1 },
      CompletionRatio: { 'rt-cache': 1 },
      CacheRatio: { 'rt-cache': 0.5 },
      AudioRatio: { 'rt-cache': 10 },
    });
    const quote = realtimeQuote(mirror, 'rt-cache', 'default')!;
    // 100 text in, 40 of them cached: 60 + 40 × 0.5; 10 audio in: 100.
    expect(responseCharge(quote, realtimeUsageOf(done(usage(100, 10, 0, 0, 40)))!)).toBe(60 + 20 + 100);
    // 50 cached of 40 text and 10 audio: text first, then 10 audio at 10 × 0.5.
    expect(responseCharge(quote, realtimeUsageOf(done(usage(40, 10, 0, 0, 50)))!)).toBe(20 + 50);
    // The upstream's split wins: 10 cached audio tokens, 0 cached text.
    const split = usage(40, 10, 0, 0, 10);
    (split.input_token_details as Record<string, unknown>).cached_tokens_details = { text_tokens: 0, audio_tokens: 10 };
    expect(responseCharge(quote, realtimeUsageOf(done(split))!)).toBe(40 + 50);
  });

  it('charges a per-response price for a model with a ModelPrice, whatever the tokens', () => {
    const mirror = options({ ModelPrice: { 'rt-priced': 0.02 }, GroupRatio: { default: 1, vip: 2 } });
    const quote = realtimeQuote(mirror, 'rt-priced', 'vip')!;
    expect(responseCharge(quote, realtimeUsageOf(done(usage(1000, 1000, 1000, 1000)))!)).toBe(20_000);
    expect(responseCharge(quote, estimatedUsage(500))).toBe(20_000);
    // The hold is the price too.
    expect(reservation(quote, 0, 0, 500)).toBe(20_000);
  });

  it('bills a response without usage as what was held for it: PreConsumedQuota tokens at the completion price', () => {
    const mirror = options({ ModelRatio: { 'rt-model': 1.5 }, CompletionRatio: { 'rt-model': 2 }, AudioRatio: { 'rt-model': 8 } });
    const quote = realtimeQuote(mirror, 'rt-model', 'default')!;
    expect(realtimeUsageOf(done(undefined))).toBeNull();
    expect(realtimeUsageOf({ type: 'response.done' })).toBeNull();
    expect(responseCharge(quote, estimatedUsage(500))).toBe(500 * 2 * 1.5);
    expect(responseCharge(quote, estimatedUsage(500))).toBe(reservation(quote, 0, 0, 500));
  });

  it('does not take the upstream usage on trust: negative and absurd counts are clamped, totals are at least their parts', () => {
    expect(realtimeUsageOf(done(usage(-5, -3, -1, -2)))).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      audioInputTokens: 0,
      audioOutputTokens: 0,
      cachedTokens: 0,
    });
    expect(
      realtimeUsageOf(
        done({
          input_tokens: 1,
          output_tokens: 'many',
          input_token_details: { text_tokens: 5, audio_tokens: 1e12, cached_tokens: 9e99 },
          output_token_details: { text_tokens: 2.7, audio_tokens: 3 },
        }),
      ),
    ).toEqual({ inputTokens: 100_000_000, outputTokens: 5, audioInputTokens: 100_000_000, audioOutputTokens: 3, cachedTokens: 100_000_000 });
  });

  it('writes the realtime details into the usage record', () => {
    const mirror = options({ ModelRatio: { 'rt-model': 1.5 }, CompletionRatio: { 'rt-model': 2 }, AudioRatio: { 'rt-model': 8 } });
    const quote = realtimeQuote(mirror, 'rt-model', 'default')!;
    const caller: Caller = {
      userId: 7,
      tokenId: 3,
      tokenName: 'tok',
      unlimitedToken: true,
      group: 'default',
      modelLimits: null,
      pinnedChannelId: null,
      tokenLimits: {},
      userLimits: {},
    };
    const parsed: RealtimeUsage = realtimeUsageOf(done(usage(10, 2, 4, 16)))!;
    const record = responseRecord(
      { caller, model: 'rt-model', requestId: 'sess-1', startedAt: Date.now(), quote, tried: [5], quota: 435, upstreamModel: 'rt-upstream' },
      parsed,
    );
    expect(record).toMatchObject({
      request_id: 'sess-1',
      prompt_tokens: 12,
      completion_tokens: 20,
      quota: 435,
      channel_id: 5,
      is_stream: true,
      model_name: 'rt-model',
    });
    expect(record.content).toBe('model ratio 1.50, completion ratio 2.00, group ratio 1.00, audio ratio 8.00, audio completion ratio 2.00');
    expect(record.other).toMatchObject({
      ws: true,
      audio: true,
      text_input: 10,
      text_output: 4,
      audio_input: 2,
      audio_output: 16,
      audio_ratio: 8,
      audio_completion_ratio: 2,
      model_ratio: 1.5,
      completion_ratio: 2,
      group_ratio: 1,
      usage_source: 'upstream',
      is_model_mapped: true,
      upstream_model_name: 'rt-upstream',
    });
    const textOnly = responseRecord(
      { caller, model: 'rt-model', requestId: 'sess-2', startedAt: Date.now(), quote, tried: [5], quota: 18 },
      realtimeUsageOf(done(usage(10, 0, 4, 0)))!,
    );
    expect(textOnly.other).not.toHaveProperty('audio');
    expect(textOnly.other).toMatchObject({ ws: true, audio_input: 0, audio_output: 0 });
  });
});

describe('quotaForUsage with audio tokens (packages/contracts pricing.ts)', () => {
  const ratios = { modelRatio: 1, completionRatio: 2, cacheRatio: 0.5, groupRatio: 1 };

  it('is the text formula when no audio is given', () => {
    expect(quotaForUsage({ ...ratios, promptTokens: 100, completionTokens: 10, cachedTokens: 20 })).toBe(80 + 10 + 20);
    expect(
      quotaForUsage({ ...ratios, promptTokens: 100, completionTokens: 10, cachedTokens: 20, audioPromptTokens: 0, audioCompletionTokens: 0, audioRatio: 50 }),
    ).toBe(110);
  });

  it('weighs audio prompt tokens by audioRatio and audio completion tokens by audioRatio × audioCompletionRatio', () => {
    // text in 70, audio in 30 × 10, text out 4 × 2, audio out 6 × 10 × 3.
    expect(
      quotaForUsage({
        ...ratios,
        promptTokens: 100,
        completionTokens: 10,
        cachedTokens: 0,
        audioPromptTokens: 30,
        audioCompletionTokens: 6,
        audioRatio: 10,
        audioCompletionRatio: 3,
      }),
    ).toBe(70 + 300 + 8 + 180);
    // audioCompletionRatio defaults to 2, audioRatio to 1.
    expect(quotaForUsage({ ...ratios, promptTokens: 0, completionTokens: 5, cachedTokens: 0, audioCompletionTokens: 5 })).toBe(10);
  });

  it('caps audio at the tokens it is part of, and applies the group ratio once, rounding at the end', () => {
    expect(quotaForUsage({ ...ratios, promptTokens: 10, completionTokens: 0, cachedTokens: 0, audioPromptTokens: 50, audioRatio: 2 })).toBe(20);
    expect(
      quotaForUsage({
        ...ratios,
        groupRatio: 0.3,
        promptTokens: 0,
        completionTokens: 3,
        cachedTokens: 0,
        audioCompletionTokens: 3,
        audioRatio: 0.5,
        audioCompletionRatio: 1.5,
      }),
    ).toBe(1); // 3 × 0.5 × 1.5 × 0.3 = 0.675
  });

  it('refuses an invalid audio ratio as it refuses the others', () => {
    expect(() => quotaForUsage({ ...ratios, promptTokens: 1, completionTokens: 0, cachedTokens: 0, audioPromptTokens: 1, audioRatio: -1 })).toThrow(RangeError);
    expect(() => quotaForUsage({ ...ratios, promptTokens: 1, completionTokens: 1, cachedTokens: 0, audioCompletionTokens: 1.5 })).toThrow(
      /audioCompletionTokens/,
    );
  });
});
