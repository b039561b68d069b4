import type { RoutingChannel } from '@aigw/contracts';
import { replyTyped, type Subscription } from '@aigw/platform';
import { channelEgress } from './channel-egress.js';
import type { RelayContext } from './context.js';
import { providerFor } from './providers/registry.js';
import type { ProviderContext, ProviderDefinition, UpstreamRequest } from './providers/types.js';
import { authorized, handshakeMs, readBounded } from './relay-call.js';
import { socketAnswer } from './upstream-socket.js';
import { wholeChat } from './operations/chat.js';
import { foldResponses } from './operations/responses.js';
import { BalanceUnavailableError } from './providers/shared/balance.js';

/**
 * `relay.channel.operate`: channels asks the relay (which owns the provider protocols and the
 * egress guard) to test a channel, list its upstream models, or read its balance, each under the
 * channel's own private-network flag.
 */
export function registerChannelOperations(context: RelayContext): Promise<Subscription> {
  return replyTyped(context.bus, 'relay.channel.operate', async ({ operation, channel, key, model }) => {
    const started = Date.now();
    const result = (ok: boolean, message: string, statusCode: number, extra: { models?: string[]; balance?: number | null } = {}) => ({
      ok,
      message,
      status_code: statusCode,
      response_time_ms: Date.now() - started,
      models: extra.models ?? [],
      balance: extra.balance ?? null,
    });
    let provider;
    try {
      provider = providerFor(channel.type);
    } catch (error) {
      return result(false, (error as Error).message, 0);
    }
    try {
      if (operation === 'models') {
        if (!provider.models) return result(false, 'this channel type has no model list', 0);
        const upstream = await authorized(context, provider, channel, key, provider.models.request({ channel, key }));
        const answer = await context.egress.fetchJson(upstream.url, { method: upstream.method, headers: upstream.headers, ...channelEgress(channel) });
        if (answer.statusCode !== 200) return result(false, provider.error(answer.statusCode, answer.text).message, answer.statusCode);
        return result(true, '', 200, { models: provider.models.parse(answer.data) });
      }
      if (operation === 'balance') return await balance(context, provider, channel, key, result);

      const testModel = model || channel.models[0] || '';
      if (!testModel) return result(false, 'the channel lists no model to test', 0);
      const providerContext: ProviderContext = {
        channel,
        key,
        upstreamModel: channel.model_mapping[testModel] ?? testModel,
        requestedModel: testModel,
        stream: false,
      };
      const built = probe(provider, testModel, providerContext);
      const upstream = await authorized(context, provider, channel, key, built);
      let response;
      if (upstream.websocket) {
        const opened = await socketAnswer(channel, provider, upstream, key, { handshakeMs: handshakeMs(context) });
        if ('failure' in opened) return result(false, opened.detail, opened.failure.status);
        response = opened.response;
      } else {
        response = await context.egress.request(upstream.url, {
          method: upstream.method,
          headers: upstream.headers,
          body: upstream.body,
          ...channelEgress(channel),
        });
      }
      const text = await readBounded(response, 256 * 1024);
      if (response.statusCode < 200 || response.statusCode >= 300) return result(false, provider.error(response.statusCode, text).message, response.statusCode);
      // A chat answer must be understood (a stream folded, for upstreams that only stream); another probe's answer only needs to be JSON.
      if (provider.chat) wholeChat(provider, { text, json: () => JSON.parse(text) as unknown }, providerContext);
      else if (provider.passthrough?.streamsOnly) foldResponses(text);
      else JSON.parse(text);
      return result(true, '', response.statusCode);
    } catch (error) {
      return result(false, (error as Error).message, 0);
    }
  });
}

/**
 * The smallest call that proves a channel works: a chat of one word, or for a provider without
 * chat an embedding of one word, a rerank of one document, or a response to one word (Codex).
 */
function probe(provider: ProviderDefinition, model: string, providerContext: ProviderContext): UpstreamRequest {
  if (provider.chat) return provider.chat.request({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream: false }, providerContext);
  if (provider.passthrough && provider.operations.includes('embeddings'))
    return provider.passthrough.request('/v1/embeddings', { model, input: 'hi' }, providerContext);
  if (provider.passthrough && provider.operations.includes('rerank')) {
    return provider.passthrough.request('/v1/rerank', { model, query: 'hi', documents: ['hello'] }, providerContext);
  }
  if (provider.passthrough && provider.operations.includes('responses'))
    return provider.passthrough.request('/v1/responses', { model, input: 'hi' }, providerContext);
  throw new Error(`channels of provider ${provider.id} cannot be tested`);
}

type Result = (
  ok: boolean,
  message: string,
  statusCode: number,
  extra?: { models?: string[]; balance?: number | null },
) => {
  ok: boolean;
  message: string;
  status_code: number;
  response_time_ms: number;
  models: string[];
  balance: number | null;
};

/** The upstream's balance through its provider's query (OpenAI's billing dashboards, SiliconFlow's, DeepSeek's, OpenRouter's). */
async function balance(context: RelayContext, provider: ProviderDefinition, channel: RoutingChannel, key: string, result: Result) {
  if (!provider.balance) return result(false, 'this channel type has no balance query', 0);
  const answers: Array<{ statusCode: number; data: unknown }> = [];
  for (const built of provider.balance.requests({ channel, key })) {
    const call = await authorized(context, provider, channel, key, built);
    const answer = await context.egress.fetchJson(call.url, { method: call.method, headers: call.headers, ...channelEgress(channel) });
    answers.push({ statusCode: answer.statusCode, data: answer.data });
    // The first call refused: the others would be too.
    if (answer.statusCode !== 200) break;
  }
  try {
    return result(true, '', 200, { balance: provider.balance.parse(answers) });
  } catch (error) {
    if (!(error instanceof BalanceUnavailableError)) throw error;
    return result(false, error.message, answers.at(-1)?.statusCode ?? 0);
  }
}
