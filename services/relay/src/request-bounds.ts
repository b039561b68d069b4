import { RelayError } from './errors.js';
import type { OperationName } from './operations/types.js';

/**
 * The multipliers of each operation, checked at ingress (rule R7, test D2): integers in the
 * provider's documented range, or 400 naming the field before anything is held or forwarded.
 * The established product's exploited advisory was exactly an unbounded, unheld multiplier
 * (image `n` wrapped negative in settlement). Ranges are OpenAI's (its OpenAPI description):
 * chat and completions `n` 1..128, completions `best_of` 0..20, an embeddings `input` array at
 * most 2048 entries (applied to a completions `prompt` batch too: OpenAI documents no bound
 * there, and each prompt multiplies the answers).
 */

/** The largest max_tokens accepted; bounds the hold. */
export const MAX_OUTPUT_TOKENS = 10_000_000;
/** OpenAI's bound on `n` (chat and completions). */
export const MAX_CHOICES = 128;
/** OpenAI's bound on the completions' `best_of`. */
export const MAX_BEST_OF = 20;
/** OpenAI's bound on `n` of an image request. */
export const MAX_IMAGES = 10;
/** OpenAI's bound on an embeddings `input` array; also ours on a completions `prompt` batch. */
export const MAX_BATCH_INPUTS = 2048;

export interface RequestBounds {
  /** max_tokens (or max_completion_tokens) as given; 0 when the request gives none. */
  maxTokens: number;
  /**
   * How many answers the upstream generates, and bills, for the request: `n` on chat;
   * max(n, best_of) per prompt of the batch on completions; 1 otherwise. The completion part
   * of the hold is multiplied by it.
   */
  answers: number;
}

function invalid(param: string, message: string): RelayError {
  return new RelayError(400, message, 'invalid_request', 'invalid_request_error', param);
}

/** An absent (or null) field is `fallback`; anything else must be an integer from min to max. */
function integerField(body: Record<string, unknown>, param: string, min: number, max: number, fallback: number): number {
  const value = body[param];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(param, `${param} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function outputLimit(body: Record<string, unknown>): number {
  const param = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  return integerField(body, param, 0, MAX_OUTPUT_TOKENS, 0);
}

const isTokenId = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * How many inputs a `prompt` or `input` is: a string or an array of token ids is one; an array
 * of strings or of token-id arrays is a batch of at most MAX_BATCH_INPUTS. Absent is one (the
 * upstream decides whether it needs it).
 */
function batchSize(body: Record<string, unknown>, param: string): number {
  const value = body[param];
  if (value === undefined || value === null || typeof value === 'string') return 1;
  const shape = `${param} must be a string, an array of strings, an array of token ids or an array of token id arrays`;
  if (!Array.isArray(value) || value.length === 0) throw invalid(param, shape);
  if (value.length > MAX_BATCH_INPUTS) throw invalid(param, `${param} must have at most ${MAX_BATCH_INPUTS} entries`);
  if (value.every(isTokenId)) return 1;
  if (value.every((item) => typeof item === 'string')) return value.length;
  if (value.every((item) => Array.isArray(item) && item.every(isTokenId))) return value.length;
  throw invalid(param, shape);
}

/** Checks the operation's bounded fields; throws a 400 naming the first bad one. */
export function requestBounds(operation: OperationName, body: Record<string, unknown>): RequestBounds {
  switch (operation) {
    case 'chat':
      return { maxTokens: outputLimit(body), answers: integerField(body, 'n', 1, MAX_CHOICES, 1) };
    case 'completions': {
      const n = integerField(body, 'n', 1, MAX_CHOICES, 1);
      const bestOf = integerField(body, 'best_of', 0, MAX_BEST_OF, 1);
      return { maxTokens: outputLimit(body), answers: Math.max(n, bestOf) * batchSize(body, 'prompt') };
    }
    case 'embeddings':
      if (body.input === undefined || body.input === null) throw invalid('input', 'input is required');
      batchSize(body, 'input');
      return { maxTokens: outputLimit(body), answers: 1 };
    case 'moderations':
      return { maxTokens: outputLimit(body), answers: 1 };
    case 'rerank': {
      if (typeof body.query !== 'string' || body.query === '') throw invalid('query', 'query must be a non-empty string');
      const documents = body.documents;
      const shape = 'documents must be a non-empty array of strings or of objects with a text';
      if (!Array.isArray(documents) || documents.length === 0) throw invalid('documents', shape);
      if (documents.length > MAX_BATCH_INPUTS) throw invalid('documents', `documents must have at most ${MAX_BATCH_INPUTS} entries`);
      if (!documents.every((document) => typeof document === 'string' || typeof (document as { text?: unknown } | null)?.text === 'string')) {
        throw invalid('documents', shape);
      }
      integerField(body, 'top_n', 1, documents.length, documents.length);
      return { maxTokens: 0, answers: 1 };
    }
    case 'images':
    case 'image-edits':
    case 'image-variations':
      // OpenAI's bound on `n` for every image model; the price multiplies it.
      return { maxTokens: 0, answers: integerField(body, 'n', 1, MAX_IMAGES, 1) };
    case 'audio-speech':
    case 'audio-transcriptions':
    case 'audio-translations':
      return { maxTokens: 0, answers: 1 };
    case 'responses':
      return { maxTokens: integerField(body, 'max_output_tokens', 1, MAX_OUTPUT_TOKENS, 0), answers: 1 };
    // Task submits cost one per-call price; their routes check their own fields.
    case 'realtime':
    case 'midjourney':
    case 'suno':
      return { maxTokens: 0, answers: 1 };
  }
}
