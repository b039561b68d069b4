// The relay publishes its usage records without a zod parse (issue 16: no parse of data the process
// produced itself), so `usageRecord` must meet the schema by construction: for any input its
// sources can give, the schema accepts the record and changes nothing in it (no field stripped,
// defaulted or cut). Records that come back from Redis or the outbox are parsed where they are read.
import fc from 'fast-check';
import { MAX_MODEL_NAME_LENGTH, MAX_QUOTA, usageRecordSchema } from '@aigw/contracts';
import { saneUsage, type PriceQuote } from '../src/metering.js';
import { usageRecord, type RecordInput } from '../src/relay-call.js';
import type { Caller } from '../src/caller.js';

/** What app.ts admits as a request id: its own UUID, or the gateway's signed id. */
const requestId = fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/));
const id = fc.integer({ min: 1, max: 2_147_483_647 });
/** Upstream usage figures before saneUsage: anything a provider could send. */
const reported = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 1e12));

const quote = fc.record({
  pricing: fc.oneof(
    fc.record({ kind: fc.constant('ratio' as const), modelRatio: fc.double({ min: 0, max: 1e6, noNaN: true }) }),
    fc.record({ kind: fc.constant('price' as const), modelPrice: fc.double({ min: 0, max: 1e6, noNaN: true }) }),
  ),
  groupRatio: fc.double({ min: 0, max: 100, noNaN: true }),
  completionRatio: fc.double({ min: 0, max: 100, noNaN: true }),
  cacheRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  createCacheRatio: fc.double({ min: 0, max: 2, noNaN: true }),
  quotaPerUnit: fc.double({ min: 1, max: 1e7, noNaN: true }),
  details: fc.option(fc.record({ content: fc.string({ maxLength: 300 }), other: fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.boolean())) }), {
    nil: undefined,
  }),
}) satisfies fc.Arbitrary<PriceQuote>;

const input = fc.record({
  requestId,
  userId: id,
  tokenId: fc.oneof(fc.constant(0), id),
  // Names and groups come from the console, which may hold longer text than a record carries.
  tokenName: fc.string({ maxLength: 200 }),
  group: fc.string({ maxLength: 200 }),
  model: fc.string({ minLength: 1, maxLength: MAX_MODEL_NAME_LENGTH }),
  quote,
  stream: fc.boolean(),
  tried: fc.array(id, { maxLength: 5 }),
  usage: fc.record({
    prompt_tokens: reported,
    completion_tokens: reported,
    cached_tokens: reported,
    cache_creation_tokens: fc.option(reported, { nil: undefined }),
  }),
  quota: fc.integer({ min: 0, max: MAX_QUOTA }),
  firstResponseMs: fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: undefined }),
  estimated: fc.boolean(),
  upstreamModel: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
  // Notes carry upstream error text and stop reasons: any length.
  note: fc.option(fc.string({ maxLength: 3000 }), { nil: undefined }),
  // The request started up to a day ago, or a little "later" (the clock stepped back meanwhile).
  startedAgoMs: fc.integer({ min: -5_000, max: 90_000_000 }),
});

function recordInput(drawn: typeof input extends fc.Arbitrary<infer T> ? T : never): RecordInput {
  const caller = { userId: drawn.userId, tokenId: drawn.tokenId, tokenName: drawn.tokenName, group: drawn.group } as Caller;
  const usage = saneUsage({
    prompt_tokens: drawn.usage.prompt_tokens,
    completion_tokens: drawn.usage.completion_tokens,
    cached_tokens: drawn.usage.cached_tokens,
    ...(drawn.usage.cache_creation_tokens === undefined ? {} : { cache_creation_tokens: drawn.usage.cache_creation_tokens }),
  });
  return Object.assign({}, drawn, { caller, usage, startedAt: Date.now() - drawn.startedAgoMs });
}

describe('usageRecord', () => {
  it('meets the usage record schema by construction: the schema accepts it and changes nothing', () => {
    fc.assert(
      fc.property(input, (drawn) => {
        const record = usageRecord(recordInput(drawn));
        const parsed = usageRecordSchema.safeParse(record);
        if (!parsed.success) throw new Error(`schema refused the record: ${JSON.stringify(parsed.error.issues)}`);
        expect(parsed.data).toEqual(record);
      }),
      { numRuns: 500 },
    );
  });

  it('shares nothing the caller keeps changing (the in-process bus freezes what it delivers)', () => {
    const tried = [3];
    const drawn = fc.sample(input, { numRuns: 1, seed: 7 })[0]!;
    const record = usageRecord(Object.assign(recordInput(drawn), { tried }));
    Object.freeze((record.other as { admin_info: { use_channel: number[] } }).admin_info.use_channel);
    tried.push(4);
    expect((record.other as { admin_info: { use_channel: number[] } }).admin_info.use_channel).toEqual([3]);
  });
});
