import { z } from 'zod';
import { RelayError } from '../errors.js';
import { estimateCompletion, countTexts, textsTokenBound } from '../estimates.js';
import { geminiToOpenAi, OpenAiToGeminiStream, openAiToGemini } from '../formats/gemini-input.js';
import { generateContentSchema, usageFromGemini } from '../providers/gemini/chat.js';
import { parseJson } from '../providers/shared/upstream-response.js';
import { MAX_BATCH_INPUTS, MAX_OUTPUT_TOKENS } from '../request-bounds.js';
import { chatPromptBound, countChatPrompt } from '../tokenizer/index.js';
import { redactKey } from '../redact.js';
import { chatOf, type ProviderError, type StreamOutput } from '../providers/types.js';
import { chatAnswer, chatUpstream } from './chat.js';
import { pieceOf } from './chat-stream.js';
import { passthrough } from './openai-passthrough.js';
import type { Attempt, ClientStream, OperationDefinition, StreamPiece } from './types.js';

/**
 * Gemini's own API (`/v1beta/models/{model}:{method}`, key as `x-goog-api-key` or `?key=`). Its
 * route hands the pipeline `{ model, request, sse }`: the model from the path, the client's body
 * as it came, and for a stream whether the client asked for SSE (`alt=sse`) or Gemini's default
 * JSON array. A channel whose provider speaks Gemini (`ProviderDefinition.gemini`) gets the body
 * unchanged and the client gets its answer unchanged; any other chat channel gets the request as
 * OpenAI chat and the answer converted back (formats/gemini-input.ts).
 */
export interface GeminiCall extends Record<string, unknown> {
  model: string;
  request: Record<string, unknown>;
  sse: boolean;
}

/** The channel speaks Gemini's API for this model (Vertex AI only for Gemini models; others are converted to chat). */
const isNative = (attempt: Attempt) => {
  const native = attempt.provider.gemini;
  return native !== undefined && (native.serves?.(attempt.context) ?? true);
};
const requestOf = (body: Record<string, unknown>) => (body as GeminiCall).request;

function checkedModel(body: Record<string, unknown>): string {
  const model = typeof body.model === 'string' ? body.model.trim() : '';
  if (!model || model.length > 128)
    throw new RelayError(400, 'the model in the path is missing or too long', 'invalid_request', 'invalid_request_error', 'model');
  return model;
}

function generateOperation(stream: boolean): OperationDefinition {
  return {
    name: 'chat',
    label: 'generateContent',
    capability: 'chat',
    inspect(body) {
      const model = checkedModel(body);
      const request = requestOf(body);
      if (!Array.isArray(request.contents) || request.contents.length === 0) {
        throw new RelayError(400, 'contents: a non-empty array is required', 'invalid_request', 'invalid_request_error', 'contents');
      }
      const config = (request.generationConfig ?? {}) as Record<string, unknown>;
      const maxTokens = config.maxOutputTokens ?? 0;
      if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 0 || maxTokens > MAX_OUTPUT_TOKENS) {
        throw new RelayError(
          400,
          `generationConfig.maxOutputTokens: an integer from 1 to ${MAX_OUTPUT_TOKENS}`,
          'invalid_request',
          'invalid_request_error',
          'maxOutputTokens',
        );
      }
      const candidates = config.candidateCount ?? 1;
      if (typeof candidates !== 'number' || !Number.isSafeInteger(candidates) || candidates < 1 || candidates > 8) {
        throw new RelayError(400, 'generationConfig.candidateCount: an integer from 1 to 8', 'invalid_request', 'invalid_request_error', 'candidateCount');
      }
      return { model, stream, bounds: { maxTokens, answers: candidates } };
    },
    estimatePrompt(body, model) {
      const converted = geminiToOpenAi(requestOf(body), model, false);
      return countChatPrompt(converted.messages, model, converted.tools);
    },
    // The conversion is cheap beside a tokenizer pass, and bounding what is counted keeps the two in step.
    boundPrompt(body, model) {
      const converted = geminiToOpenAi(requestOf(body), model, false);
      return chatPromptBound(converted.messages, converted.tools);
    },
    upstream(attempt, body) {
      if (isNative(attempt)) {
        const method = stream ? 'streamGenerateContent' : 'generateContent';
        return { request: attempt.provider.gemini!.request(method, requestOf(body), attempt.context), injectedUsage: false };
      }
      return chatUpstream(attempt, geminiToOpenAi(requestOf(body), attempt.context.requestedModel, stream));
    },
    answer(attempt, upstream) {
      if (isNative(attempt)) {
        const json = upstream.json();
        const parsed = generateContentSchema.safeParse(json);
        const usage = parsed.success && parsed.data.usageMetadata ? usageFromGemini(parsed.data.usageMetadata) : null;
        return { body: json, usage, estimatedCompletion: usage ? 0 : estimateCompletion(json, attempt.context.requestedModel) };
      }
      const converted = chatAnswer(attempt, upstream);
      return Object.assign({}, converted, { body: openAiToGemini(converted.body, attempt.context.requestedModel) });
    },
    stream: (attempt, options) => {
      const framing = new GeminiFraming((options.body as GeminiCall).sse);
      return isNative(attempt) ? nativeStream(attempt, framing) : convertedStream(attempt, framing, options.promptTokens);
    },
  };
}

/**
 * How a Gemini stream reaches the client: SSE events (`data: {...}` with CRLF, as Google sends
 * them), or, without `alt=sse`, one JSON array written element by element.
 */
class GeminiFraming {
  private first = true;
  readonly contentType: string;

  constructor(private readonly sse: boolean) {
    this.contentType = sse ? 'text/event-stream; charset=utf-8' : 'application/json; charset=utf-8';
  }

  element(json: string): string {
    if (this.sse) return `data: ${json}\r\n\r\n`;
    const text = `${this.first ? '[' : ',\r\n'}${json}`;
    this.first = false;
    return text;
  }

  error(error: ProviderError): string {
    return this.element(JSON.stringify({ error: { code: 500, message: error.message, status: error.type === 'upstream_error' ? 'INTERNAL' : error.type } }));
  }

  close(): string {
    if (this.sse) return '';
    return this.first ? '[]' : ']';
  }
}

function nativeStream(attempt: Attempt, framing: GeminiFraming): ClientStream {
  const key = attempt.context.key;
  return {
    contentType: framing.contentType,
    onEvent(event): StreamPiece[] {
      const json = parseJson(event.data);
      const failure = z.object({ error: z.object({ message: z.string(), status: z.string().nullish() }) }).safeParse(json);
      if (failure.success) return [{ error: { message: failure.data.error.message, type: failure.data.error.status ?? 'INTERNAL', code: 'stream_error' } }];
      const parsed = generateContentSchema.safeParse(json);
      const piece: StreamPiece = { write: framing.element(redactKey(event.data, key)) };
      if (!parsed.success) return [piece];
      const text = (parsed.data.candidates ?? [])
        .flatMap((candidate) => candidate.content?.parts ?? [])
        .map((part) => part.text ?? (part.functionCall ? JSON.stringify(part.functionCall.args ?? {}) : ''))
        .join('');
      if (text) piece.text = text;
      // usageMetadata is cumulative: the last report is the answer's.
      if (parsed.data.usageMetadata) piece.usage = usageFromGemini(parsed.data.usageMetadata);
      return [piece];
    },
    onEnd: () => [],
    errorFrame: (error) => framing.error(error),
    close: () => framing.close(),
  };
}

function convertedStream(attempt: Attempt, framing: GeminiFraming, promptTokens: () => number): ClientStream {
  const converter = chatOf(attempt.provider).stream(attempt.context);
  const gemini = new OpenAiToGeminiStream(attempt.context.requestedModel);
  const key = attempt.context.key;
  // An output with usage carries it in its chunk too, so the last chunk reports the upstream's
  // figures; the local count (a tokenizer pass) is made only for a stream that had none.
  let reported = false;
  const pieces = (outputs: StreamOutput[]): StreamPiece[] =>
    outputs.map((output) => {
      if (output.usage) reported = true;
      const chunks = output.data === undefined ? [] : gemini.push(redactKey(output.data, key));
      const piece = pieceOf(output);
      if (chunks.length > 0) piece.write = chunks.map((chunk) => framing.element(JSON.stringify(chunk))).join('');
      return piece;
    });
  return {
    contentType: framing.contentType,
    onEvent: (event) => pieces(converter.onEvent(event)),
    onEnd: () => pieces(converter.onEnd()),
    errorFrame: (error) => framing.error(error),
    close: (partial, completionTokens) =>
      (partial ? '' : framing.element(JSON.stringify(gemini.finish(() => ({ prompt: reported ? 0 : promptTokens(), completion: completionTokens() }))))) +
      framing.close(),
  };
}

export const geminiGenerateOperation = generateOperation(false);
export const geminiStreamGenerateOperation = generateOperation(true);

const embedAnswerSchema = z.object({ data: z.array(z.object({ embedding: z.array(z.number()) })) });

/** The text of an embedContent request's content. */
function contentText(content: unknown): string {
  const parts = (content as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts)) return '';
  return parts
    .map((part) => (part as { text?: unknown } | null)?.text)
    .filter((text): text is string => typeof text === 'string')
    .join('');
}

/**
 * `:embedContent` and `:batchEmbedContents`: native to Gemini channels; on channels that serve
 * OpenAI's embeddings, sent as `/v1/embeddings` (one input per content) and answered in Gemini's
 * shape. Gemini reports no usage for embeddings: the prompt tokens are counted here.
 */
function embedOperation(batch: boolean): OperationDefinition {
  const texts = (body: Record<string, unknown>): string[] => {
    const request = requestOf(body);
    if (!batch) return [contentText(request.content)];
    return Array.isArray(request.requests) ? request.requests.map((entry) => contentText((entry as { content?: unknown } | null)?.content)) : [];
  };
  return {
    name: 'embeddings',
    label: batch ? 'batchEmbedContents' : 'embedContent',
    capability: 'embeddings',
    inspect(body) {
      const model = checkedModel(body);
      const request = requestOf(body);
      if (batch) {
        const requests = request.requests;
        if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_BATCH_INPUTS) {
          throw new RelayError(
            400,
            `requests: an array of 1 to ${MAX_BATCH_INPUTS} requests is required`,
            'invalid_request',
            'invalid_request_error',
            'requests',
          );
        }
      } else if (contentText(request.content) === '') {
        throw new RelayError(400, 'content: parts with text are required', 'invalid_request', 'invalid_request_error', 'content');
      }
      return { model, stream: false, bounds: { maxTokens: 0, answers: 1 } };
    },
    estimatePrompt: (body, model) => countTexts(texts(body), model),
    boundPrompt: (body) => textsTokenBound(texts(body)),
    upstream(attempt, body) {
      if (isNative(attempt)) {
        return {
          request: attempt.provider.gemini!.request(batch ? 'batchEmbedContents' : 'embedContent', requestOf(body), attempt.context),
          injectedUsage: false,
        };
      }
      return {
        request: passthrough(attempt).request('/v1/embeddings', { model: attempt.context.upstreamModel, input: texts(body) }, attempt.context),
        injectedUsage: false,
      };
    },
    answer(attempt, upstream) {
      const json = upstream.json();
      // Gemini counts nothing back for embeddings; OpenAI-format upstreams do.
      const usage = isNative(attempt) ? null : passthrough(attempt).usage(json);
      if (isNative(attempt)) return { body: json, usage, estimatedCompletion: 0 };
      const parsed = embedAnswerSchema.safeParse(json);
      if (!parsed.success) throw new RelayError(502, 'the upstream answered embeddings in an unknown shape', 'bad_upstream_response', 'upstream_error');
      const embeddings = parsed.data.data.map((entry) => ({ values: entry.embedding }));
      return { body: batch ? { embeddings } : { embedding: embeddings[0] }, usage, estimatedCompletion: 0 };
    },
  };
}

export const geminiEmbedOperation = embedOperation(false);
export const geminiBatchEmbedOperation = embedOperation(true);
