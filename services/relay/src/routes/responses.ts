import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { RelayError } from '../errors.js';
import { providerFor } from '../providers/registry.js';
import { channelEgress } from '../channel-egress.js';
import { readBounded } from '../relay-call.js';
import { redactKey } from '../redact.js';

type Params = { Params: { id: string } };

/**
 * A stored response of the Responses API (`GET` and `DELETE /v1/responses/{id}`, its
 * `input_items`, `cancel`): sent to the channel that created it, for the user who created it, and
 * answered as the upstream answers. Nothing is billed: the upstream charges nothing for these.
 */
export const storedResponseRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  const keyed = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens) };
  const forward =
    (method: 'GET' | 'POST' | 'DELETE', suffix = '') =>
    async (request: FastifyRequest<Params>, reply: FastifyReply) => {
      const { id } = request.params;
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      await proxy(context, request, reply, id, method, `/v1/responses/${encodeURIComponent(id)}${suffix}${query}`);
      if (method === 'DELETE' && reply.statusCode === 200) await context.objects.forget(id);
      return reply;
    };
  app.get<Params>('/v1/responses/:id', keyed, forward('GET'));
  app.delete<Params>('/v1/responses/:id', keyed, forward('DELETE'));
  app.get<Params>('/v1/responses/:id/input_items', keyed, forward('GET', '/input_items'));
  app.post<Params>('/v1/responses/:id/cancel', keyed, forward('POST', '/cancel'));
};

async function proxy(
  context: RelayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
): Promise<void> {
  const caller = callerOf(request);
  const stored = await context.objects.find(id);
  // Another user's response is as absent as one that never existed.
  const channel = stored && stored.user_id === caller.userId ? context.channels.index.get(stored.channel_id) : undefined;
  if (!channel) throw new RelayError(404, `No response found with id '${id}'.`, 'not_found', 'invalid_request_error');
  const adapter = providerFor(channel.type).passthrough;
  if (!adapter?.get) throw new RelayError(404, `No response found with id '${id}'.`, 'not_found', 'invalid_request_error');
  const key = await context.channels.key(channel);
  const providerContext = { channel, key, upstreamModel: '', requestedModel: '', stream: false };
  const upstream = adapter.get(path, providerContext);
  const response = await context.egress.request(upstream.url, { method, headers: upstream.headers, ...channelEgress(channel) }).catch(() => {
    throw new RelayError(502, 'failed to reach the upstream', 'upstream_unreachable', 'upstream_error');
  });
  const text = await readBounded(response, context.limits.maxUpstreamBodyBytes);
  void reply
    .status(response.statusCode)
    .header('content-type', String(response.headers['content-type'] ?? 'application/json'))
    .send(redactKey(text, key));
}
