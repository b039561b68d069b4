import { z } from 'zod';
import type { ChatProviderDefinition, ProviderContext, UpstreamRequest } from '../types.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { anthropicChatBody, anthropicChatResponse } from '../anthropic/chat.js';
import { AnthropicStreamConverter } from '../anthropic/chat-stream.js';
import { BEDROCK_ANTHROPIC_VERSION, controlBase, isAnthropicModel, modelPath, runtimeBase } from './api.js';
import { converseBody, converseResponse, ConverseStreamConverter } from './converse.js';
import { bedrockError } from './error.js';
import { EventStreamFramer } from './event-stream.js';
import { signBedrock } from './sign.js';

const modelListSchema = z.object({ modelSummaries: z.array(z.object({ modelId: z.string() })) });

/** A call to the runtime for the model: its Messages (InvokeModel) or Converse path, streamed or not. */
function runtimeCall(context: ProviderContext, anthropic: boolean, body: Record<string, unknown>, warnings: string[]): UpstreamRequest {
  const action = anthropic ? (context.stream ? 'invoke-with-response-stream' : 'invoke') : context.stream ? 'converse-stream' : 'converse';
  return {
    method: 'POST',
    url: `${runtimeBase(context)}${modelPath(context.upstreamModel)}/${action}`,
    headers: { 'content-type': 'application/json', accept: context.stream ? 'application/vnd.amazon.eventstream' : 'application/json' },
    body: JSON.stringify(body),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * A Messages body as Bedrock's InvokeModel takes it: no model (it is in the path) and no stream
 * flag (the path says it), `anthropic_version` Bedrock's, and the client's beta features in the
 * body, where Bedrock reads them.
 */
function bedrockMessagesBody(body: Record<string, unknown>, forwarded: Record<string, string> | undefined): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = body;
  const betas = forwarded?.['anthropic-beta']
    ?.split(',')
    .map((beta) => beta.trim())
    .filter(Boolean);
  return { ...rest, anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(betas?.length ? { anthropic_beta: betas } : {}) };
}

/**
 * AWS Bedrock (channel type 33): every call signed with SigV4 (`authorize`); the key is
 * `AK|SK|region` (optionally `|session token`). Anthropic's models through InvokeModel with the
 * Messages API (chat converted as for Anthropic's own API; `/v1/messages` clients natively, so
 * cache_control and thinking survive), every other model through the Converse API. Streams come
 * in AWS's binary event stream (`framing`).
 */
export const bedrockProvider: ChatProviderDefinition = {
  id: 'bedrock',
  operations: ['chat'],
  // Both Anthropic's stream and ConverseStream always end with usage.
  streamUsage: true,
  chat: {
    request(body, context) {
      if (isAnthropicModel(context.upstreamModel)) {
        const converted = anthropicChatBody(body, context);
        return runtimeCall(context, true, bedrockMessagesBody(converted.body, undefined), converted.warnings);
      }
      const converted = converseBody(body, context);
      return runtimeCall(context, false, converted.body, converted.warnings);
    },
    response: (json, context) => (isAnthropicModel(context.upstreamModel) ? anthropicChatResponse(json, context) : converseResponse(json, context)),
    stream: (context) => (isAnthropicModel(context.upstreamModel) ? new AnthropicStreamConverter(context) : new ConverseStreamConverter(context)),
  },
  messages: {
    serves: (context) => isAnthropicModel(context.upstreamModel),
    request: (body, context) => runtimeCall(context, true, bedrockMessagesBody(body, context.forwarded), []),
  },
  models: {
    request: (context) => ({ method: 'GET', url: `${controlBase(context)}/foundation-models`, headers: { accept: 'application/json' } }),
    parse: (json) => parseUpstream(modelListSchema, json, 'bedrock').modelSummaries.map((model) => model.modelId),
  },
  authorize: (request, context) => signBedrock(request, context),
  framing: () => new EventStreamFramer(),
  error: bedrockError,
};
