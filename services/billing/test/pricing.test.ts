import fc from 'fast-check';
import { BusRequestError } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type TestGateway } from '../../gateway/test/support/gateway';
import {
  cacheRatio,
  completionRatio,
  defaultOptionValues,
  groupRatio,
  lookupRate,
  MAX_ANSWERS,
  MAX_QUOTA,
  MAX_RATIO,
  MAX_TOKENS,
  modelPricing,
  quotaForCall,
  quotaForUsage,
  reservationFor,
  SELF_USE_MODEL_RATIO,
  type UsageInput,
} from '@aigw/contracts';

const options = defaultOptionValues();
const usage = (overrides: Partial<UsageInput>): UsageInput => ({
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  modelRatio: 1,
  completionRatio: 1,
  cacheRatio: 1,
  groupRatio: 1,
  ...overrides,
});

describe('quotaForUsage (docs/compatibility.md section 3.5)', () => {
  it.each([
    // [what, input, expected quota]
    [
      'gpt-4o: 1000 prompt + 500 completion at ratio 1.25, completion 4',
      usage({ promptTokens: 1000, completionTokens: 500, modelRatio: 1.25, completionRatio: 4 }),
      3750,
    ],
    ['the same in group ratio 1.5', usage({ promptTokens: 1000, completionTokens: 500, modelRatio: 1.25, completionRatio: 4, groupRatio: 1.5 }), 5625],
    [
      '400 of the 1000 prompt tokens cached at 0.5',
      usage({ promptTokens: 1000, completionTokens: 500, cachedTokens: 400, modelRatio: 1.25, completionRatio: 4, cacheRatio: 0.5 }),
      3500,
    ],
    [
      'claude-3-5-sonnet, cache read 0.1',
      usage({ promptTokens: 2000, cachedTokens: 1000, completionTokens: 100, modelRatio: 1.5, completionRatio: 5, cacheRatio: 0.1 }),
      2400,
    ],
    ['gpt-4o-mini, one prompt token: below 1 becomes the minimum 1', usage({ promptTokens: 1, modelRatio: 0.075 }), 1],
    ['every token cached at ratio 0: still the minimum 1', usage({ promptTokens: 10, cachedTokens: 10, modelRatio: 1, cacheRatio: 0 }), 1],
    ['no tokens at all: 0 (upstream timeout)', usage({ modelRatio: 37.5, groupRatio: 2 }), 0],
    ['a free model (ratio 0): 0', usage({ promptTokens: 1000, completionTokens: 1000, modelRatio: 0 }), 0],
    ['a free group (ratio 0): 0', usage({ promptTokens: 1000, modelRatio: 1.25, groupRatio: 0 }), 0],
    ['half rounds up: 100 × 0.075 = 7.5', usage({ promptTokens: 100, modelRatio: 0.075 }), 8],
    ['exact, where floating point says 31.499…: 45 × 0.7 = 31.5', usage({ promptTokens: 45, modelRatio: 0.7 }), 32],
    ['cached above prompt counts as prompt, never negative', usage({ promptTokens: 10, cachedTokens: 50, modelRatio: 1, cacheRatio: 0.5 }), 5],
    ['tiny ratio printed with an exponent (1e-7)', usage({ promptTokens: MAX_TOKENS, modelRatio: 1e-7 }), 10],
    [
      'the largest inputs clamp to MAX_QUOTA instead of wrapping',
      usage({ promptTokens: MAX_TOKENS, completionTokens: MAX_TOKENS, modelRatio: MAX_RATIO, completionRatio: MAX_RATIO, groupRatio: MAX_RATIO }),
      MAX_QUOTA,
    ],
  ])('%s', (_what, input, expected) => {
    const quota = quotaForUsage(input);
    expect(quota).toBe(expected);
    expect(Number.isSafeInteger(quota)).toBe(true);
  });

  it.each([
    ['promptTokens', -1],
    ['promptTokens', 1.5],
    ['promptTokens', Number.NaN],
    ['promptTokens', MAX_TOKENS + 1],
    ['completionTokens', 2 ** 63],
    ['cachedTokens', -5],
    ['modelRatio', -0.5],
    ['modelRatio', Number.NaN],
    ['completionRatio', Infinity],
    ['groupRatio', MAX_RATIO + 1],
    ['cacheRatio', -1],
  ] as Array<[keyof UsageInput, number]>)('rejects %s = %p naming it', (field, value) => {
    expect(() => quotaForUsage(usage({ promptTokens: 10, [field]: value }))).toThrow(new RegExp(`^${field}`));
    expect(() => quotaForUsage(usage({ promptTokens: 10, [field]: value }))).toThrow(RangeError);
  });

  it('rejects values that are not numbers', () => {
    expect(() => quotaForUsage(usage({ modelRatio: '1' as unknown as number }))).toThrow(RangeError);
    expect(() => quotaForUsage(usage({ promptTokens: '5' as unknown as number }))).toThrow(RangeError);
  });
});

describe('exactness over random inputs', () => {
  /** The formula again, all in BigInt (the decimal each ratio prints as, one rounding at the end). */
  const fraction = (value: number): [bigint, bigint] => {
    const [mantissa, exponent = '0'] = String(value).split('e');
    const [whole, part = ''] = mantissa!.split('.');
    const scale = part.length - Number(exponent);
    const digits = BigInt(whole! + part);
    return scale >= 0 ? [digits, 10n ** BigInt(scale)] : [digits * 10n ** BigInt(-scale), 1n];
  };
  const reference = (input: UsageInput): number => {
    const [mn, md] = fraction(input.modelRatio);
    const [gn, gd] = fraction(input.groupRatio);
    const [cn, cd] = fraction(input.completionRatio);
    const [kn, kd] = fraction(input.cacheRatio);
    const cached = BigInt(Math.min(input.cachedTokens, input.promptTokens));
    const plain = BigInt(input.promptTokens) - cached;
    // weighted = plain + cached × cache + completion × completionRatio, over cd × kd
    const weighted = plain * cd * kd + cached * kn * cd + BigInt(input.completionTokens) * cn * kd;
    const n = weighted * mn * gn;
    const d = cd * kd * md * gd;
    if (input.promptTokens === 0 && input.completionTokens === 0) return 0;
    const rounded = (2n * n + d) / (2n * d);
    const quota = rounded > BigInt(MAX_QUOTA) ? MAX_QUOTA : Number(rounded);
    return quota === 0 && mn !== 0n && gn !== 0n ? 1 : quota;
  };
  // Ratios as admins type them (up to 6 decimals), and now and then a huge or tiny one (1e-7,
  // MAX_RATIO: products far beyond the safe integers, clamped to MAX_QUOTA).
  const ratio = fc.oneof(
    fc.integer({ min: 0, max: 1_000_000 }).map((milli) => milli / 1000),
    fc.integer({ min: 0, max: 10_000_000 }).map((micro) => micro / 1_000_000),
    fc.constantFrom(0.075, 0.7, 1e-7, 37.5, MAX_RATIO, 123456.789012),
  );
  const count = fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: MAX_TOKENS }));

  it('quotaForUsage and reservationFor agree with the formula in BigInt, to the unit', () => {
    fc.assert(
      fc.property(
        count,
        count,
        count,
        ratio,
        ratio,
        ratio,
        ratio,
        (promptTokens, completionTokens, cachedTokens, modelRatio, completionRatio, cacheRatio, groupRatio) => {
          const input = usage({ promptTokens, completionTokens, cachedTokens, modelRatio, completionRatio, cacheRatio, groupRatio });
          expect(quotaForUsage(input)).toBe(reference(input));
          const hold = reservationFor({
            pricing: { kind: 'ratio', modelRatio },
            groupRatio,
            quotaPerUnit: 500_000,
            promptTokens,
            maxTokens: completionTokens,
            preConsumedTokens: 500,
            completionRatio,
          });
          const held =
            completionTokens === 0
              ? usage({ completionTokens: 500, modelRatio, groupRatio })
              : usage({ promptTokens, completionTokens, modelRatio, completionRatio, groupRatio });
          expect(hold).toBe(reference(held));
        },
      ),
      { seed: 16, numRuns: 3_000 },
    );
  });
});

describe('quotaForCall (per-call price)', () => {
  it.each([
    ['dall-e-3 0.04 × 500000', { modelPrice: 0.04, groupRatio: 1, quotaPerUnit: 500000 }, 20000],
    ['dall-e-3 in group 1.5', { modelPrice: 0.04, groupRatio: 1.5, quotaPerUnit: 500000 }, 30000],
    ['mj_describe 0.05 in group 0.8', { modelPrice: 0.05, groupRatio: 0.8, quotaPerUnit: 500000 }, 20000],
    ['suno_lyrics 0.01', { modelPrice: 0.01, groupRatio: 1, quotaPerUnit: 500000 }, 5000],
    ['a free action (price 0)', { modelPrice: 0, groupRatio: 1, quotaPerUnit: 500000 }, 0],
    ['the largest inputs clamp to MAX_QUOTA', { modelPrice: MAX_RATIO, groupRatio: MAX_RATIO, quotaPerUnit: 1e9 }, MAX_QUOTA],
  ])('%s', (_what, input, expected) => {
    expect(quotaForCall(input)).toBe(expected);
  });

  it('rejects a negative, NaN or unbounded price and quota per unit', () => {
    expect(() => quotaForCall({ modelPrice: -0.04, groupRatio: 1, quotaPerUnit: 500000 })).toThrow(/^modelPrice/);
    expect(() => quotaForCall({ modelPrice: Number.NaN, groupRatio: 1, quotaPerUnit: 500000 })).toThrow(RangeError);
    expect(() => quotaForCall({ modelPrice: 0.04, groupRatio: 1, quotaPerUnit: Infinity })).toThrow(/^quotaPerUnit/);
  });
});

describe('price lookups from the options', () => {
  it('prefers the per-call price, then the ratio; unknown models are refused unless self-use mode', () => {
    expect(modelPricing(options, 'dall-e-3', false)).toEqual({ kind: 'price', modelPrice: 0.04 });
    expect(modelPricing(options, 'gpt-4o', false)).toEqual({ kind: 'ratio', modelRatio: 1.25 });
    expect(modelPricing({ ModelPrice: { 'gpt-4o': 0.5 }, ModelRatio: { 'gpt-4o': 1.25 } }, 'gpt-4o', false)).toEqual({ kind: 'price', modelPrice: 0.5 });
    expect(modelPricing(options, 'no-such-model', false)).toBeNull();
    expect(modelPricing(options, 'no-such-model', true)).toEqual({ kind: 'ratio', modelRatio: SELF_USE_MODEL_RATIO });
  });

  it("matches '*' suffix wildcards after exact names, the longest prefix first", () => {
    expect(modelPricing(options, 'gpt-4-gizmo-g-abc123', false)).toEqual({ kind: 'price', modelPrice: 0.1 });
    expect(completionRatio(options.CompletionRatio, 'gpt-4-gizmo-g-abc123')).toBe(2);
    expect(completionRatio(options.CompletionRatio, 'gpt-4o-gizmo-g-abc123')).toBe(3);
    const map = { 'a-*': 1, 'a-b-*': 2, 'a-b-c': 3 };
    expect(lookupRate(map, 'a-b-c')).toBe(3);
    expect(lookupRate(map, 'a-b-x')).toBe(2);
    expect(lookupRate(map, 'a-x')).toBe(1);
    expect(lookupRate(map, 'b')).toBeUndefined();
    // Inherited object keys are not prices.
    expect(lookupRate(map, 'toString')).toBeUndefined();
  });

  it('completion ratio: the option first, then the model family, else 1', () => {
    expect(completionRatio(options.CompletionRatio, 'gpt-4o')).toBe(4);
    expect(completionRatio(options.CompletionRatio, 'gpt-4o-mini')).toBe(4);
    expect(completionRatio(options.CompletionRatio, 'gpt-3.5-turbo')).toBe(3);
    expect(completionRatio(options.CompletionRatio, 'claude-3-5-sonnet-20241022')).toBe(5);
    expect(completionRatio(options.CompletionRatio, 'gpt-4-all')).toBe(2);
    expect(completionRatio({ 'gpt-4o': 2 }, 'gpt-4o')).toBe(2);
    expect(completionRatio(options.CompletionRatio, 'text-embedding-3-small')).toBe(1);
  });

  it('cache ratio and group ratio default to 1', () => {
    expect(cacheRatio(options.CacheRatio, 'gpt-4o')).toBe(0.5);
    expect(cacheRatio(options.CacheRatio, 'deepseek-chat')).toBe(0.25);
    expect(cacheRatio(options.CacheRatio, 'gpt-3.5-turbo')).toBe(1);
    expect(groupRatio({ default: 1, vip: 0.8 }, 'vip')).toBe(0.8);
    expect(groupRatio({ default: 1 }, 'unknown')).toBe(1);
    expect(groupRatio({ default: 1 }, 'constructor')).toBe(1);
  });
});

describe('reservationFor (the hold, docs/compatibility.md section 3.4)', () => {
  const gpt4o = { kind: 'ratio', modelRatio: 1.25 } as const;
  const base = { groupRatio: 1, quotaPerUnit: 500000, promptTokens: 200, preConsumedTokens: 500, completionRatio: 4 };

  it('holds PreConsumedQuota tokens at the model × group ratio when there is no max_tokens', () => {
    expect(reservationFor({ ...base, pricing: gpt4o })).toBe(625);
    expect(reservationFor({ ...base, pricing: gpt4o, maxTokens: 0, groupRatio: 2 })).toBe(1250);
  });

  it('holds prompt + max_tokens (priced as completion) when max_tokens is given: the most it can cost', () => {
    expect(reservationFor({ ...base, pricing: gpt4o, maxTokens: 1000 })).toBe(5250);
    const worst = quotaForUsage(usage({ promptTokens: 200, completionTokens: 1000, modelRatio: 1.25, completionRatio: 4 }));
    expect(reservationFor({ ...base, pricing: gpt4o, maxTokens: 1000 })).toBeGreaterThanOrEqual(worst);
  });

  it('holds the full per-call price', () => {
    expect(reservationFor({ ...base, pricing: { kind: 'price', modelPrice: 0.04 }, groupRatio: 1.5 })).toBe(30000);
  });

  it('a free model holds nothing; bad max_tokens are refused', () => {
    expect(reservationFor({ ...base, pricing: { kind: 'ratio', modelRatio: 0 } })).toBe(0);
    expect(() => reservationFor({ ...base, pricing: gpt4o, maxTokens: -1 })).toThrow(/^maxTokens/);
    expect(() => reservationFor({ ...base, pricing: gpt4o, maxTokens: 2 ** 31 })).toThrow(RangeError);
  });

  it('holds the completion once per answer the upstream generates (n, best_of, a prompt batch)', () => {
    // 200 prompt + 3 × 1000 completion × 4, at 1.25.
    expect(reservationFor({ ...base, pricing: gpt4o, maxTokens: 1000, answers: 3 })).toBe(15250);
    expect(reservationFor({ ...base, pricing: gpt4o, maxTokens: 0, answers: 3 })).toBe(1875);
    // A per-call price is the price of the call, whatever it asks for.
    expect(reservationFor({ ...base, pricing: { kind: 'price', modelPrice: 0.04 }, groupRatio: 1.5, answers: 3 })).toBe(30000);
  });

  it('saturates at MAX_QUOTA, exactly, where the product outgrows any token count (rule R7)', () => {
    const worst = {
      ...base,
      pricing: { kind: 'ratio', modelRatio: MAX_RATIO } as const,
      groupRatio: MAX_RATIO,
      completionRatio: MAX_RATIO,
      promptTokens: MAX_TOKENS,
    };
    expect(reservationFor({ ...worst, maxTokens: MAX_TOKENS, answers: MAX_ANSWERS })).toBe(MAX_QUOTA);
    // 128 answers × 10^7 tokens: 1.28 × 10^9 completion tokens, beyond MAX_TOKENS, held exactly.
    expect(reservationFor({ ...base, pricing: gpt4o, maxTokens: 10_000_000, answers: 128, completionRatio: 1, groupRatio: 1 })).toBe(1_600_000_250);
    for (const answers of [0, -1, 1.5, MAX_ANSWERS + 1, Number.NaN, 2 ** 63]) {
      expect(() => reservationFor({ ...base, pricing: gpt4o, maxTokens: 10, answers })).toThrow(/^answers must be an integer/);
    }
  });
});

describe.each(backends)('GET /api/pricing (%s)', (backend) => {
  let gateway: TestGateway;
  const pricing = async (session?: Awaited<ReturnType<TestGateway['login']>>) => {
    const response = await gateway.call('GET', '/api/pricing', { session });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const row = (body: { data: Array<{ model_name: string }> }, model: string) => body.data.find((entry) => entry.model_name === model);

  beforeAll(async () => {
    gateway = await startGateway(backend);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('without channels answering, lists every priced model in every group; guests see the default group', async () => {
    // Channels runs in this process: make its answer fail as if it were down.
    const bus = gateway.env.infra.bus;
    const request = bus.request.bind(bus);
    bus.request = async (subject: string, data: unknown, options?: { timeoutMs?: number }) => {
      if (subject === 'channels.model.enabled') throw new BusRequestError('no responders', subject, 'no-responder');
      return request(subject, data, options);
    };
    let body;
    try {
      body = await pricing();
    } finally {
      bus.request = request;
    }
    expect(body).toMatchObject({ success: true, group_ratio: { default: 1 }, usable_group: { default: 'default group' } });
    expect(Object.keys(body.group_ratio)).toEqual(['default']);
    expect(row(body, 'gpt-4o')).toEqual({
      model_name: 'gpt-4o',
      quota_type: 0,
      model_ratio: 1.25,
      model_price: 0,
      completion_ratio: 4,
      enable_groups: ['default', 'svip', 'vip'],
    });
    expect(row(body, 'dall-e-3')).toMatchObject({ quota_type: 1, model_price: 0.04, model_ratio: 0 });
    expect(body.data.some((entry: { model_name: string }) => entry.model_name.includes('*'))).toBe(false);
  });

  it('signed-in users see their usable groups, their own group included', async () => {
    expect((await gateway.register('pricey', 'pricey-pass')).json().success).toBe(true);
    const session = await gateway.login('pricey', 'pricey-pass');
    const body = await pricing(session);
    expect(body.usable_group).toEqual({ default: 'default group', vip: 'vip group' });
    expect(body.group_ratio).toEqual({ default: 1, vip: 1 });

    const root = await gateway.login('root', ROOT_PASSWORD);
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: session.id, group: 'svip' } })).json().success).toBe(true);
    const moved = await gateway.login('pricey', 'pricey-pass');
    await waitFor(async () => 'svip' in (await pricing(moved)).usable_group, 10_000, 'own group listed');
    expect((await pricing(moved)).group_ratio).toEqual({ default: 1, vip: 1, svip: 1 });
  });

  it('lists the models channels offer, with their groups, priced through wildcards; unpriced ones only in self-use mode', async () => {
    const root = await gateway.login('root', ROOT_PASSWORD);
    for (const [models, group] of [
      ['gpt-4o', 'vip,default'],
      ['gpt-4o,gpt-4-gizmo-g-abc,mystery-model', 'svip,default'],
    ] as const) {
      const created = (
        await gateway.call('POST', '/api/channel/', { session: root, body: { type: 1, name: `c-${group}`, key: `k-${group}`, models, group } })
      ).json();
      expect(created.success).toBe(true);
    }
    // Billing keeps the channels' answer for a few seconds.
    await waitFor(
      async () => (await pricing()).data.some((entry: { model_name: string }) => entry.model_name === 'gpt-4-gizmo-g-abc'),
      10_000,
      'channels listed',
    );
    const body = await pricing();
    expect(body.data).toEqual([
      { model_name: 'gpt-4-gizmo-g-abc', quota_type: 1, model_ratio: 0, model_price: 0.1, completion_ratio: 0, enable_groups: ['default', 'svip'] },
      { model_name: 'gpt-4o', quota_type: 0, model_ratio: 1.25, model_price: 0, completion_ratio: 4, enable_groups: ['default', 'svip', 'vip'] },
    ]);

    expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'SelfUseModeEnabled', value: 'true' } })).json().success).toBe(true);
    await waitFor(async () => row(await pricing(), 'mystery-model') !== undefined, 10_000, 'self-use mode reached billing');
    expect(row(await pricing(), 'mystery-model')).toMatchObject({ quota_type: 0, model_ratio: 37.5, completion_ratio: 1 });
  });
});
