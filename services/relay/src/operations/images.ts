import { z } from 'zod';
import { RelayError } from '../errors.js';
import type { PriceQuote } from '../metering.js';
import { openAiUsageOf } from '../providers/shared/usage.js';
import type { Usage } from '../providers/types.js';
import { requestBounds } from '../request-bounds.js';
import type { UploadedFile } from '../routes/uploads.js';
import { countText, textTokenBound } from '../tokenizer/index.js';
import { modelOf } from './model-field.js';
import { passthrough } from './openai-passthrough.js';
import type { Attempt, Inspected, OperationDefinition, OperationName, UpstreamAnswer } from './types.js';

/*
 * OpenAI's image APIs: `POST /v1/images/generations` (JSON), `/v1/images/edits` and
 * `/v1/images/variations` (multipart). Forwarded as the client sent them but for the model (the
 * JSON body through the provider's passthrough, the form rebuilt with the upstream model), the
 * answer passed through unchanged (`url` and `b64_json` answers alike).
 *
 * Pricing, the established product's rules (docs/compatibility.md section 3.3):
 * - Per image, charged in full once the call succeeded; the hold is that full price.
 *   price = the model's ModelPrice (USD per image), or, when it has only a ModelRatio,
 *   0.0025 × ModelRatio USD (ratio 16 is DALL·E's $0.04);
 *   × the size ratio (256x256 0.4, 512x512 0.45, 1024x1024 1, 1024x1792 and 1792x1024 2, any
 *   other size or none 1)
 *   × the quality ratio (dall-e-3 with quality "hd": 2, or 1.5 at 1024x1792 and 1792x1024; else 1)
 *   × the image count; quota = price × GroupRatio × QuotaPerUnit, the product exact
 *   (`quotaForCall` multiplies the multipliers on decimals: no float product is ever billed).
 * - gpt-image-* models with no ModelPrice but a ModelRatio are billed by the tokens they report
 *   instead (OpenAI's image answer carries `usage: { input_tokens, output_tokens }`): prompt =
 *   input tokens, completion = output tokens, at the model and completion ratios. Their hold is the
 *   prompt's tokens plus MAX_IMAGE_OUTPUT_TOKENS per image at the completion price.
 *
 * The image count is `n`, or SiliconFlow's `batch_size` when that is larger (SiliconFlow serves
 * this route with its own count field; every upstream honours one of the two, never both).
 *
 * Not served: streamed images (gpt-image's `stream: true` and `partial_images` events): answered
 * 400 naming `stream`, since the pipeline reads image answers whole.
 */

/** Size multipliers of a per-image price; any other size (or none given) is 1. */
export const IMAGE_SIZE_RATIOS: Readonly<Record<string, number>> = {
  '256x256': 0.4,
  '512x512': 0.45,
  '1024x1024': 1,
  '1024x1792': 2,
  '1792x1024': 2,
};

/** USD per image per unit of ModelRatio, for an image model priced by ratio only. */
export const USD_PER_IMAGE_RATIO = 0.0025;

/**
 * The most output tokens one gpt-image image may cost (gpt-image-1, high quality, 1024x1536:
 * 6,240 tokens; OpenAI's table), held per image for the token-billed models.
 */
export const MAX_IMAGE_OUTPUT_TOKENS = 6240;

/** SiliconFlow's documented range of `batch_size`. */
const MAX_BATCH_SIZE = 4;

/**
 * gpt-image-1's output tokens per image by quality and size (OpenAI's table), for an answer whose
 * upstream reports no usage; an unknown size or quality (`auto`) counts the most.
 */
const GPT_IMAGE_OUTPUT_TOKENS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  low: { '1024x1024': 272, '1024x1536': 408, '1536x1024': 400 },
  medium: { '1024x1024': 1056, '1024x1536': 1584, '1536x1024': 1568 },
  high: { '1024x1024': 4160, '1024x1536': 6240, '1536x1024': 6208 },
};

/** Billed by reported tokens when they have no ModelPrice. */
export const isTokenBilledImageModel = (model: string) => model.startsWith('gpt-image-');

type ImageKind = 'generations' | 'edits' | 'variations';

/** What pricing and the hold read from a checked request. */
interface ImageRequest {
  model: string;
  prompt: string | undefined;
  size: string | undefined;
  quality: string | undefined;
  /** Images the upstream generates: max(n, batch_size). */
  images: number;
  bounds: Inspected['bounds'];
}

const RESPONSE_FORMATS = new Set(['url', 'b64_json']);

/**
 * A file of the form (routes/uploads.ts's UploadedFile). Checked here, not with that module's
 * isUploadedFile: it imports the operations when it loads, and this module is one of them.
 */
function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).data) && typeof (value as UploadedFile).filename === 'string';
}

function invalid(param: string, message: string): RelayError {
  return new RelayError(400, message, 'invalid_request', 'invalid_request_error', param);
}

/** A text field: absent, or one string (a form's repeated field or a file is refused, naming it). */
function textField(body: Record<string, unknown>, param: string): string | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(param, `${param} must be a string`);
  return value;
}

/**
 * A numeric field of a multipart form arrives as text: converted here (bounds are checked on
 * numbers), 400 naming it when it is not an integer. A JSON body's fields are taken as they are
 * (a JSON `n` must be a number).
 */
function formInteger(body: Record<string, unknown>, param: string, multipart: boolean): unknown {
  const value = body[param];
  if (!multipart || typeof value !== 'string') return value;
  if (!/^\s*\d{1,9}\s*$/.test(value)) throw invalid(param, `${param} must be an integer`);
  return Number(value);
}

/** An optional integer in [min, max]; 400 naming it otherwise. */
function boundedInteger(value: unknown, param: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(param, `${param} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** The files of a form field: one file, or several (`image[]`); 400 naming it when absent or not files. */
function files(body: Record<string, unknown>, param: string, required: boolean, many: boolean): UploadedFile[] {
  const value = body[param];
  if (value === undefined || value === null) {
    if (required) throw invalid(param, `${param} is required: upload ${many ? 'one or more image files' : 'an image file'}`);
    return [];
  }
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0 || !list.every(isUploadedFile)) throw invalid(param, `${param} must be ${many ? 'one or more files' : 'a file'}`);
  if (!many && list.length > 1) throw invalid(param, `${param} must be one file`);
  return list;
}

/** Checks an image request (400 naming the first bad field) and reads what pricing needs. */
function imageRequest(kind: ImageKind, body: Record<string, unknown>): ImageRequest {
  // OpenAI's default model for every image route; the established product defaults to it too.
  const model = body.model === undefined || body.model === null ? 'dall-e-2' : modelOf(body);
  const prompt = textField(body, 'prompt');
  if (kind !== 'variations' && (prompt === undefined || prompt.trim() === '')) throw invalid('prompt', 'prompt is required');
  const responseFormat = textField(body, 'response_format');
  if (responseFormat !== undefined && !RESPONSE_FORMATS.has(responseFormat)) {
    throw invalid('response_format', 'response_format must be "url" or "b64_json"');
  }
  const size = textField(body, 'size');
  const quality = textField(body, 'quality');
  const stream = body.stream;
  if (stream === true || stream === 'true') throw invalid('stream', 'streamed image answers are not supported by this gateway');
  if (stream !== undefined && stream !== null && stream !== false && stream !== 'false') throw invalid('stream', 'stream must be a boolean');
  if (kind === 'edits') {
    files(body, 'image', true, true);
    files(body, 'mask', false, false);
  } else if (kind === 'variations') {
    files(body, 'image', true, false);
  }

  // Numbers: a form's text converted first, then bounded (n by request-bounds, 400 naming it).
  const multipart = kind !== 'generations';
  const bounds = requestBounds(multipart ? 'image-edits' : 'images', Object.assign({}, body, { n: formInteger(body, 'n', multipart) }));
  const batchSize = boundedInteger(formInteger(body, 'batch_size', multipart), 'batch_size', 1, MAX_BATCH_SIZE) ?? 1;
  boundedInteger(formInteger(body, 'output_compression', multipart), 'output_compression', 0, 100);
  boundedInteger(formInteger(body, 'partial_images', multipart), 'partial_images', 0, 3);
  const images = Math.max(bounds.answers, batchSize);
  return {
    model,
    prompt,
    size,
    quality,
    images,
    // The hold of a token-billed model: the most output tokens per image, times the images.
    bounds: { maxTokens: isTokenBilledImageModel(model) ? MAX_IMAGE_OUTPUT_TOKENS : 0, answers: images },
  };
}

/** The quality multiplier: dall-e-3 "hd" is 2, or 1.5 at the large sizes; everything else 1. */
export function imageQualityRatio(model: string, size: string | undefined, quality: string | undefined): number {
  if (model !== 'dall-e-3' || quality !== 'hd') return 1;
  return size === '1024x1792' || size === '1792x1024' ? 1.5 : 2;
}

/**
 * The image request's price (the rules at the top of this file): a per-image price with its size,
 * quality and count multipliers, or, for a token-billed gpt-image model, the model's ratio quote
 * with what the log shows.
 */
export function imagePrice(quote: PriceQuote, body: Record<string, unknown>, model: string, kind: ImageKind): PriceQuote {
  const request = imageRequest(kind, body);
  const words = `image size ${request.size ?? 'default'}, quality ${request.quality ?? 'default'}, n ${request.images}`;
  if (quote.pricing.kind === 'ratio' && isTokenBilledImageModel(model)) {
    return Object.assign({}, quote, { details: { content: `${words}, billed by tokens`, other: { image: true, image_count: request.images } } });
  }
  const sizeRatio = request.size !== undefined && Object.hasOwn(IMAGE_SIZE_RATIOS, request.size) ? IMAGE_SIZE_RATIOS[request.size]! : 1;
  const qualityRatio = imageQualityRatio(model, request.size, request.quality);
  const other = { image: true, image_count: request.images, image_size_ratio: sizeRatio, image_quality_ratio: qualityRatio };
  if (quote.pricing.kind === 'ratio') {
    // 0.0025 USD × ModelRatio per image, multiplied exactly (never a float product).
    const modelRatio = quote.pricing.modelRatio;
    return Object.assign({}, quote, {
      pricing: { kind: 'price' as const, modelPrice: USD_PER_IMAGE_RATIO, multipliers: [modelRatio, sizeRatio, qualityRatio, request.images] },
      details: {
        content: `${words}, ${USD_PER_IMAGE_RATIO} USD × model ratio ${modelRatio} per image`,
        other: Object.assign({}, other, { model_ratio: modelRatio }),
      },
    });
  }
  const multipliers = [...(quote.pricing.multipliers ?? []), sizeRatio, qualityRatio, request.images];
  return Object.assign({}, quote, { pricing: Object.assign({}, quote.pricing, { multipliers }), details: { content: words, other } });
}

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));

/** OpenAI's image usage: input tokens (text and images), output tokens (the images). */
const imageUsageSchema = z.object({
  usage: z.object({
    input_tokens: count,
    output_tokens: count,
    input_tokens_details: z.object({ cached_tokens: count }).nullish(),
  }),
});

/**
 * The answer's usage: OpenAI's image shape (input/output tokens), else a chat-style one
 * (prompt/completion tokens), else null. A `usage` with neither (only `total_tokens`, say) is no
 * usage: taken as an explicit zero, it would make a token-billed image free.
 */
export function imageUsage(json: unknown): Usage | null {
  const usage = (json as { usage?: unknown } | null)?.usage;
  if (typeof usage !== 'object' || usage === null) return null;
  const has = (field: string) => typeof (usage as Record<string, unknown>)[field] === 'number';
  if (has('input_tokens') || has('output_tokens')) {
    const parsed = imageUsageSchema.safeParse(json);
    if (!parsed.success) return null;
    const { input_tokens, output_tokens, input_tokens_details } = parsed.data.usage;
    return { prompt_tokens: input_tokens, completion_tokens: output_tokens, cached_tokens: input_tokens_details?.cached_tokens ?? 0 };
  }
  return has('prompt_tokens') || has('completion_tokens') ? openAiUsageOf(json) : null;
}

/**
 * Output tokens of a gpt-image answer that reports no usage: OpenAI's per-image figure for its
 * quality and size (the most, 6,240, when either is unknown or `auto`) for each image delivered.
 */
function estimatedImageTokens(json: unknown, request: ImageRequest): number {
  if (!isTokenBilledImageModel(request.model)) return 0;
  const data = (json as { data?: unknown } | null)?.data;
  const delivered = Array.isArray(data) ? data.length : request.images;
  const bySize = Object.hasOwn(GPT_IMAGE_OUTPUT_TOKENS, request.quality ?? '') ? GPT_IMAGE_OUTPUT_TOKENS[request.quality!]! : {};
  const perImage = Object.hasOwn(bySize, request.size ?? '') ? bySize[request.size!]! : MAX_IMAGE_OUTPUT_TOKENS;
  return delivered * perImage;
}

/** The upstream form: the client's fields and files as received (`image[]` kept plural), the upstream model. */
function imageForm(body: Record<string, unknown>, model: string): FormData {
  const form = new FormData();
  form.append('model', model);
  for (const [name, value] of Object.entries(body)) {
    if (name === 'model' || value === undefined || value === null) continue;
    const field = Array.isArray(value) ? `${name}[]` : name;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (isUploadedFile(item)) form.append(field, new Blob([item.data], { type: item.contentType }), item.filename);
      else form.append(field, String(item));
    }
  }
  return form;
}

function imageOperation(kind: ImageKind, name: OperationName, label: string): OperationDefinition {
  const path = `/v1/images/${kind}`;
  const multipart = kind !== 'generations';
  return {
    name,
    label,
    capability: name,
    inspect(body) {
      const { model, bounds } = imageRequest(kind, body);
      // Never streamed: gpt-image streaming is not served (refused above, naming `stream`).
      return { model, stream: false, bounds };
    },
    estimatePrompt(body, model) {
      const prompt = body.prompt;
      return typeof prompt === 'string' ? countText(prompt, model) : 0;
    },
    boundPrompt: (body) => (typeof body.prompt === 'string' ? textTokenBound(body.prompt) : 0),
    price: (quote, body, model) => imagePrice(quote, body, model, kind),
    upstream(attempt: Attempt, body) {
      const adapter = passthrough(attempt);
      if (!multipart) return { request: adapter.request(path, body, attempt.context), injectedUsage: false };
      // A provider that lists 'image-edits' has a form passthrough (the registry's test holds it to that).
      if (!adapter.form) throw new Error(`provider ${attempt.provider.id} lists image edits but cannot send a form`);
      return { request: adapter.form(path, imageForm(body, attempt.context.upstreamModel), attempt.context), injectedUsage: false };
    },
    answer(_attempt, upstream: UpstreamAnswer, body) {
      // Passed through unchanged (the pipeline sends the bytes received).
      const json = upstream.json();
      const usage = imageUsage(json);
      return { body: json, usage, estimatedCompletion: usage ? 0 : estimatedImageTokens(json, imageRequest(kind, body)) };
    },
  };
}

export const imageGenerationsOperation = imageOperation('generations', 'images', 'image generations');
export const imageEditsOperation = imageOperation('edits', 'image-edits', 'image edits');
export const imageVariationsOperation = imageOperation('variations', 'image-variations', 'image variations');
