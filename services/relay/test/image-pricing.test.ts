import type { ModelPricing } from '@aigw/contracts';
import { RelayError } from '../src/errors';
import { charge, priceDetails, reservation, type PriceQuote } from '../src/metering';
import { imageEditsOperation, imageGenerationsOperation, imageUsage, imageVariationsOperation } from '../src/operations/images';

const QUOTA_PER_UNIT = 500_000;
const noUsage = { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 };

const quoteOf = (pricing: ModelPricing, groupRatio = 1, completionRatio = 1): PriceQuote => ({
  pricing,
  groupRatio,
  completionRatio,
  cacheRatio: 1,
  createCacheRatio: 1.25,
  quotaPerUnit: QUOTA_PER_UNIT,
});
const price = (modelPrice: number): ModelPricing => ({ kind: 'price', modelPrice });
const ratio = (modelRatio: number): ModelPricing => ({ kind: 'ratio', modelRatio });

/** The charge of a generation request: what the hold is too (a per-image price is held in full). */
function quotaOf(model: string, pricing: ModelPricing, body: Record<string, unknown>, groupRatio: number): number {
  const quote = imageGenerationsOperation.price!(quoteOf(pricing, groupRatio), { model, prompt: 'a cat', ...body }, model);
  const quota = charge(quote, noUsage);
  expect(reservation(quote, 3, 0, 500, 1)).toBe(quota);
  return quota;
}

const png = { filename: 'a.png', contentType: 'image/png', data: Buffer.from('not really a png') };

/**
 * The established product's image price: per image, ModelPrice (or 0.0025 USD × ModelRatio) ×
 * size ratio × quality ratio × n, × group ratio × QuotaPerUnit (500,000), exact and rounded half
 * up once. Each expected integer is worked out by hand in the comment beside it.
 */
describe('image pricing', () => {
  it.each<[string, string, ModelPricing, Record<string, unknown>, number, number]>([
    // [what, model, pricing, body, group ratio, quota]
    ['dall-e-3 standard 1024x1024', 'dall-e-3', price(0.04), { size: '1024x1024' }, 1, 20_000], // 0.04 × 500k
    ['dall-e-3 no size or quality', 'dall-e-3', price(0.04), {}, 1, 20_000], // any other size: 1
    ['dall-e-3 hd 1024x1024', 'dall-e-3', price(0.04), { size: '1024x1024', quality: 'hd' }, 1, 40_000], // × 2
    ['dall-e-3 hd 1792x1024 n 2', 'dall-e-3', price(0.04), { size: '1792x1024', quality: 'hd', n: 2 }, 1, 120_000], // × 2 × 1.5 × 2
    ['dall-e-3 hd 1024x1792', 'dall-e-3', price(0.04), { size: '1024x1792', quality: 'hd' }, 1, 60_000], // × 2 × 1.5
    ['dall-e-3 standard 1024x1792', 'dall-e-3', price(0.04), { size: '1024x1792', quality: 'standard' }, 1, 40_000], // × 2
    ['dall-e-3 hd 512x512', 'dall-e-3', price(0.04), { size: '512x512', quality: 'hd' }, 1, 18_000], // × 0.45 × 2
    ['hd is dall-e-3 only', 'dall-e-2', price(0.02), { size: '512x512', quality: 'hd' }, 1, 4_500], // 0.02 × 0.45
    ['hd is dall-e-3 only, exactly', 'dall-e-3-custom', price(0.04), { quality: 'hd' }, 1, 20_000],
    ['dall-e-2 256x256 n 3', 'dall-e-2', price(0.02), { size: '256x256', n: 3 }, 1, 12_000], // 0.02 × 0.4 × 3
    ['dall-e-2 512x512 group 0.75', 'dall-e-2', price(0.02), { size: '512x512' }, 0.75, 3_375], // 0.02 × 0.45 × 0.75
    ['an unknown size is 1', 'dall-e-2', price(0.02), { size: '2048x2048', n: 10 }, 1, 100_000], // 0.02 × 10
    ['gpt-image-1 with a ModelPrice is per image', 'gpt-image-1', price(0.167), { size: '1536x1024', quality: 'high', n: 2 }, 1, 167_000],
    // Exact where floats are not: 0.011 × 0.45 × 3 × 0.7 × 500k = 5197.5 (floats: 5197.4999…).
    ['half up, exactly', 'dall-e-2', price(0.011), { size: '512x512', n: 3 }, 0.7, 5_198],
    ['ratio 8: 0.02 USD per image', 'dall-e-2', ratio(8), { size: '256x256' }, 1, 4_000], // 0.0025 × 8 × 0.4
    ['ratio 16 dall-e-3 hd 1792x1024 n 10 group 1.5', 'dall-e-3', ratio(16), { size: '1792x1024', quality: 'hd', n: 10 }, 1.5, 900_000],
    // 0.0025 × 0.7 × 0.45 × 4 × 0.3 × 500k = 472.5 (floats: 472.4999…).
    ['ratio, exactly', 'dall-e-2', ratio(0.7), { size: '512x512', n: 4 }, 0.3, 473],
    ['ratio, group 0', 'dall-e-2', ratio(8), {}, 0, 0],
    ["SiliconFlow's batch_size counts the images", 'Kwai-Kolors/Kolors', price(0.01), { batch_size: 3 }, 1, 15_000], // 0.01 × 3
  ])('%s', (_what, model, pricing, body, groupRatio, quota) => {
    expect(quotaOf(model, pricing, body, groupRatio)).toBe(quota);
  });

  it('shows the multipliers in the log row', () => {
    const quote = imageGenerationsOperation.price!(
      quoteOf(price(0.04)),
      { model: 'dall-e-3', prompt: 'x', size: '1792x1024', quality: 'hd', n: 2 },
      'dall-e-3',
    );
    expect(quote.pricing).toEqual({ kind: 'price', modelPrice: 0.04, multipliers: [2, 1.5, 2] });
    expect(priceDetails(quote)).toEqual({
      content: 'model price 0.04, group ratio 1.00, image size 1792x1024, quality hd, n 2',
      other: { model_price: 0.04, group_ratio: 1, image: true, image_count: 2, image_size_ratio: 2, image_quality_ratio: 1.5 },
    });

    const byRatio = imageGenerationsOperation.price!(quoteOf(ratio(8)), { model: 'dall-e-2', prompt: 'x', size: '256x256' }, 'dall-e-2');
    expect(byRatio.pricing).toEqual({ kind: 'price', modelPrice: 0.0025, multipliers: [8, 0.4, 1, 1] });
    expect(byRatio.details?.other).toEqual({ image: true, image_count: 1, image_size_ratio: 0.4, image_quality_ratio: 1, model_ratio: 8 });
  });

  it('bills gpt-image models without a ModelPrice by their tokens, and holds the most they may cost', () => {
    const body = { model: 'gpt-image-1', prompt: 'a cat', quality: 'high', n: 2 };
    const quote = imageGenerationsOperation.price!(quoteOf(ratio(2.5), 1, 8), body, 'gpt-image-1');
    expect(quote.pricing).toEqual({ kind: 'ratio', modelRatio: 2.5 });
    expect(quote.details).toEqual({ content: 'image size default, quality high, n 2, billed by tokens', other: { image: true, image_count: 2 } });
    // (input 120 + output 8320 × completion ratio 8) × model ratio 2.5.
    expect(charge(quote, { prompt_tokens: 120, completion_tokens: 8_320, cached_tokens: 0 })).toBe(166_700);

    const { bounds } = imageGenerationsOperation.inspect(body);
    expect(bounds).toEqual({ maxTokens: 6_240, answers: 2 });
    const prompt = imageGenerationsOperation.estimatePrompt(body, 'gpt-image-1');
    expect(prompt).toBe(2); // "a cat" in o200k
    // (2 + 6,240 × 2 × 8) × 2.5.
    expect(reservation(quote, prompt, bounds.maxTokens, 500, bounds.answers)).toBe(249_605);
  });

  it("reads OpenAI's image usage, a chat-style one, and nothing from a usage without counts", () => {
    const usage = { input_tokens: 50, output_tokens: 4_160, total_tokens: 4_210, input_tokens_details: { text_tokens: 10, image_tokens: 40 } };
    expect(imageUsage({ data: [], usage })).toEqual({ prompt_tokens: 50, completion_tokens: 4_160, cached_tokens: 0 });
    expect(imageUsage({ usage: { prompt_tokens: 7, completion_tokens: 0 } })).toEqual({ prompt_tokens: 7, completion_tokens: 0, cached_tokens: 0 });
    expect(imageUsage({ usage: { total_tokens: 9 } })).toBeNull();
    expect(imageUsage({ data: [] })).toBeNull();
  });

  it('estimates the output of a gpt-image answer without usage from its quality and size', () => {
    const answer = (text: string) => ({ text, contentType: 'application/json', json: () => JSON.parse(text) as unknown });
    const attempt = {} as Parameters<NonNullable<typeof imageGenerationsOperation.answer>>[0];
    const read = (...args: Parameters<NonNullable<typeof imageGenerationsOperation.answer>>) => imageGenerationsOperation.answer!(...args);
    const two = answer('{"data":[{"b64_json":"x"},{"b64_json":"y"}]}');
    expect(read(attempt, two, { model: 'gpt-image-1', prompt: 'x', quality: 'low', size: '1536x1024' })).toMatchObject({
      usage: null,
      estimatedCompletion: 800, // 2 x 400
    });
    expect(read(attempt, two, { model: 'gpt-image-1', prompt: 'x' }).estimatedCompletion).toBe(12_480); // 2 x the most
    expect(read(attempt, two, { model: 'dall-e-3', prompt: 'x' }).estimatedCompletion).toBe(0);
  });

  it('reads the numbers of a form, and prices edits and variations alike', () => {
    const edit = { model: 'dall-e-2', prompt: 'x', image: png, n: '3', size: '512x512' };
    expect(imageEditsOperation.inspect(edit)).toEqual({ model: 'dall-e-2', stream: false, bounds: { maxTokens: 0, answers: 3 } });
    expect(charge(imageEditsOperation.price!(quoteOf(price(0.02)), edit, 'dall-e-2'), noUsage)).toBe(13_500); // 0.02 × 0.45 × 3
    const variation = { image: png, n: '2', size: '256x256' };
    expect(imageVariationsOperation.inspect(variation).model).toBe('dall-e-2'); // OpenAI's default model
    expect(charge(imageVariationsOperation.price!(quoteOf(price(0.02)), variation, 'dall-e-2'), noUsage)).toBe(8_000); // 0.02 × 0.4 × 2
  });

  const refused = (inspect: () => unknown) => {
    try {
      inspect();
    } catch (error) {
      expect(error).toBeInstanceOf(RelayError);
      return { status: (error as RelayError).statusCode, param: (error as RelayError).param };
    }
    throw new Error('not refused');
  };

  it.each<[string, Record<string, unknown>, string]>([
    ['no prompt', { model: 'dall-e-3' }, 'prompt'],
    ['an empty prompt', { model: 'dall-e-3', prompt: ' ' }, 'prompt'],
    ['a bad response_format', { model: 'dall-e-3', prompt: 'x', response_format: 'png' }, 'response_format'],
    ['n 11', { model: 'dall-e-3', prompt: 'x', n: 11 }, 'n'],
    ['n 0', { model: 'dall-e-3', prompt: 'x', n: 0 }, 'n'],
    ['n as text in JSON', { model: 'dall-e-3', prompt: 'x', n: '2' }, 'n'],
    ['a size that is not text', { model: 'dall-e-3', prompt: 'x', size: 1024 }, 'size'],
    ['a stream', { model: 'gpt-image-1', prompt: 'x', stream: true }, 'stream'],
    ['batch_size 5', { model: 'Kwai-Kolors/Kolors', prompt: 'x', batch_size: 5 }, 'batch_size'],
    ['an empty model', { model: '', prompt: 'x' }, 'model'],
  ])('generations: refuses %s, naming the field', (_what, body, param) => {
    expect(refused(() => imageGenerationsOperation.inspect(body))).toEqual({ status: 400, param });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no image', { prompt: 'x' }, 'image'],
    ['an image that is text', { prompt: 'x', image: 'a.png' }, 'image'],
    ['no prompt', { image: png }, 'prompt'],
    ['a mask that is text', { prompt: 'x', image: png, mask: 'm' }, 'mask'],
    ['n not a number', { prompt: 'x', image: png, n: 'two' }, 'n'],
    ['n 11', { prompt: 'x', image: png, n: '11' }, 'n'],
    ['a bad output_compression', { prompt: 'x', image: png, output_compression: '101' }, 'output_compression'],
    ['a repeated prompt', { prompt: ['x', 'y'], image: png }, 'prompt'],
    ['a stream', { prompt: 'x', image: png, stream: 'true' }, 'stream'],
  ])('edits: refuses %s, naming the field', (_what, body, param) => {
    expect(refused(() => imageEditsOperation.inspect(body))).toEqual({ status: 400, param });
  });

  it('edits take several images; variations one', () => {
    expect(imageEditsOperation.inspect({ model: 'gpt-image-1', prompt: 'x', image: [png, png] }).bounds).toEqual({ maxTokens: 6_240, answers: 1 });
    expect(refused(() => imageVariationsOperation.inspect({ image: [png, png] }))).toEqual({ status: 400, param: 'image' });
    expect(refused(() => imageVariationsOperation.inspect({ n: '1' }))).toEqual({ status: 400, param: 'image' });
  });
});
