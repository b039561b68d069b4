import { z } from 'zod';
import { RelayError } from '../errors.js';
import { countTexts, estimateCompletion, textsTokenBound } from '../estimates.js';
import { requestBounds } from '../request-bounds.js';
import type { ProviderError, Usage } from '../providers/types.js';
import { passthroughStream } from './passthrough-stream.js';
import { SseParser } from '../sse/sse-parser.js';
import { parseJson } from '../providers/shared/upstream-response.js';
import { UpstreamAnswerError } from '../providers/shared/upstream-error.js';
import { modelOf } from './model-field.js';
import { passthrough } from './openai-passthrough.js';
import type { Attempt, ClientStream, OperationDefinition, StreamPiece } from './types.js';

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));

/** The Responses API's usage: input includes cached tokens, output includes reasoning tokens. */
const responsesUsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  input_tokens_details: z.object({ cached_tokens: count }).nullish(),
});

// Loose: a folded answer (foldResponses) is the whole response the event carries.
const responseSchema = z.looseObject({ id: z.string().nullish(), usage: responsesUsageSchema.nullish() });

export function usageFromResponses(usage: z.infer<typeof responsesUsageSchema>): Usage {
  return { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 };
}

/** Every string under `input` and `instructions` (text parts, tool outputs): what the prompt is made of. */
function promptTexts(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) promptTexts(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) if (key !== 'type' && key !== 'role' && key !== 'id') promptTexts(item, into);
  }
  return into;
}

/**
 * OpenAI's Responses API (`POST /v1/responses`), passed through to channels that serve it (OpenAI,
 * Azure): the body goes unchanged but for the model, the answer and its typed events come back
 * unchanged. Usage comes from the answer's `usage` or, streamed, from the terminal event
 * (`response.completed`, `response.incomplete` or `response.failed`: an incomplete answer is
 * billed for what it produced, never at zero). The answer's id is remembered with its channel and
 * user, so `GET /v1/responses/{id}` reaches the upstream that stored it, for its owner only.
 */
export const responsesOperation: OperationDefinition = {
  name: 'responses',
  label: 'responses',
  capability: 'responses',
  inspect(body) {
    const model = modelOf(body);
    if (body.input === undefined && body.previous_response_id === undefined && body.prompt === undefined) {
      throw new RelayError(400, 'input is required', 'invalid_request', 'invalid_request_error', 'input');
    }
    if (body.background === true) {
      // A background response is polled later: its usage would never reach this request's settlement.
      throw new RelayError(400, 'background responses are not supported by this gateway', 'invalid_request', 'invalid_request_error', 'background');
    }
    return { model, stream: body.stream === true, bounds: requestBounds('responses', body) };
  },
  estimatePrompt: (body, model) => countTexts(promptTexts([body.instructions, body.input]), model),
  boundPrompt: (body) => textsTokenBound(promptTexts([body.instructions, body.input])),
  upstream: (attempt, body) => ({ request: passthrough(attempt).request('/v1/responses', body, attempt.context), injectedUsage: false }),
  answer(attempt, upstream) {
    const json = attempt.provider.passthrough?.streamsOnly ? foldResponses(upstream.text) : upstream.json();
    const parsed = responseSchema.safeParse(json);
    const usage = parsed.success && parsed.data.usage ? usageFromResponses(parsed.data.usage) : null;
    return {
      body: json,
      usage,
      estimatedCompletion: usage ? 0 : estimateCompletion(json, attempt.context.requestedModel),
      ...(parsed.success && parsed.data.id ? { objectId: parsed.data.id } : {}),
    };
  },
  stream: responsesStream,
};

const eventSchema = z.object({
  type: z.string(),
  delta: z.string().nullish(),
  response: responseSchema.nullish(),
  message: z.string().nullish(),
  code: z.string().nullish(),
  error: z.object({ message: z.string().nullish(), code: z.string().nullish(), type: z.string().nullish() }).nullish(),
});

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * The whole response of an upstream that only streams (Codex): what its terminal event carries
 * (`response.completed` or `response.incomplete` hold the finished response, output and usage
 * included). A failed response or an error event is the channel's failure, as an error answer
 * of a blocking call is; a stream with no terminal event is a 502.
 */
export function foldResponses(text: string): unknown {
  const parser = new SseParser();
  for (const event of [...parser.push(text), ...parser.end()]) {
    const data = eventSchema.safeParse(parseJson(event.data)).data;
    if (data?.type === 'error' || data?.type === 'response.failed') {
      const message = data.message ?? data.error?.message ?? 'the upstream response failed';
      throw new UpstreamAnswerError({ message, type: data.error?.type ?? 'upstream_error', code: data.code ?? data.error?.code ?? 'response_failed' }, 502);
    }
    if (data && TERMINAL.has(data.type) && data.response) return data.response;
  }
  throw new RelayError(502, 'the upstream stream ended without a finished response', 'bad_upstream_response', 'upstream_error');
}
/** Events whose `delta` is generated text (billed as completion when no usage comes). */
const DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.function_call_arguments.delta',
]);

/** The Responses event stream, event by event and unchanged (it has no `[DONE]`). */
function responsesStream(attempt: Attempt): ClientStream {
  const errorFrame = (error: ProviderError) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', code: error.code, message: error.message, param: null })}\n\n`;
  return passthroughStream(
    attempt,
    eventSchema,
    (data) => {
      if (data.type === 'error') {
        const message = data.message ?? data.error?.message ?? 'upstream error';
        return { error: { message, type: data.error?.type ?? 'upstream_error', code: data.code ?? data.error?.code ?? 'stream_error' } };
      }
      const piece: Omit<StreamPiece, 'write'> = {};
      if (DELTAS.has(data.type) && data.delta) piece.text = data.delta;
      if (data.type === 'response.created' && data.response?.id) piece.objectId = data.response.id;
      if (TERMINAL.has(data.type) && data.response?.usage) piece.usage = usageFromResponses(data.response.usage);
      return piece;
    },
    errorFrame,
  );
}
