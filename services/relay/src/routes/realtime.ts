import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyPluginAsync, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { RelayError } from '../errors.js';
import { openSession, type RealtimeSession } from '../realtime/session.js';
import { REALTIME_MAX_PAYLOAD_BYTES } from '../realtime/upstream.js';

/** Browsers cannot set headers on a WebSocket: OpenAI's clients put the key in a subprotocol. */
const KEY_PROTOCOL = 'openai-insecure-api-key.';
/** The browsers' way of saying `OpenAI-Beta: realtime=v1`. */
const BETA_PROTOCOL = 'openai-beta.realtime-v1';

/** A WebSocket upgrade of the realtime path (anything else with an Upgrade header is plain HTTP to the routes). */
function isRealtimeUpgrade(request: IncomingMessage): boolean {
  const path = (request.url ?? '').split('?', 1)[0]!.replace(/\/+$/, '');
  return path === '/v1/realtime' && String(request.headers.upgrade).toLowerCase() === 'websocket';
}

/** The subprotocols the client offered (Sec-WebSocket-Protocol). */
function offeredProtocols(request: FastifyRequest): string[] {
  const header = request.headers['sec-websocket-protocol'];
  return typeof header === 'string' ? header.split(',').map((protocol) => protocol.trim()) : [];
}

/**
 * The key of a browser client, from `openai-insecure-api-key.<key>`, when no header carries one:
 * requireApiKey then checks it as any other (only the Authorization header is set from it).
 */
const keyFromProtocol: onRequestAsyncHookHandler = async (request) => {
  if (request.headers.authorization || request.headers['x-api-key']) return;
  const offered = offeredProtocols(request).find((protocol) => protocol.startsWith(KEY_PROTOCOL));
  if (offered && offered.length > KEY_PROTOCOL.length) request.headers.authorization = `Bearer ${offered.slice(KEY_PROTOCOL.length)}`;
};

/** The client's choice of interface, for the upstream: the OpenAI-Beta header or the browsers' subprotocol. */
function forwardedOf(request: FastifyRequest): Record<string, string> | undefined {
  const header = request.headers['openai-beta'];
  if (typeof header === 'string' && header !== '') return { 'openai-beta': header };
  return offeredProtocols(request).includes(BETA_PROTOCOL) ? { 'openai-beta': 'realtime=v1' } : undefined;
}

/**
 * `GET /v1/realtime?model=...` (a WebSocket): OpenAI's Realtime API through the relay
 * (realtime/session.ts). Every check runs in the hooks, before the upgrade is accepted, so a
 * refused session is a plain HTTP answer in OpenAI's shape (401, 403, 400, 503, 502); the 101
 * carries X-Oneapi-Request-Id, the session id its responses bill under (`<id>-<n>`). The
 * `realtime` subprotocol is chosen when offered, and the key's subprotocol never is.
 * @fastify/websocket is registered here, so its hooks stay in this plugin.
 */
export const realtimeRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  const opened = new WeakMap<FastifyRequest, RealtimeSession>();
  const attached = new WeakSet<RealtimeSession>();
  const sessionIds = new WeakMap<IncomingMessage, string>();
  const running = new Set<RealtimeSession>();

  // Before the plugin's own preClose (which closes the sockets without a word): sessions end with
  // 1001, their responses billed and their holds released, before the relay stops.
  app.addHook('preClose', async () => {
    await Promise.all([...running].map((session) => session.end(1001, 'the relay is shutting down')));
  });

  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: REALTIME_MAX_PAYLOAD_BYTES,
      perMessageDeflate: false,
      handleProtocols: (protocols) =>
        protocols.has('realtime') ? 'realtime' : ([...protocols].find((protocol) => !protocol.startsWith(KEY_PROTOCOL)) ?? false),
    },
    // A client that vanishes mid-frame is no server error: its socket goes, the session ends on its close.
    errorHandler: (error, socket, request) => {
      context.logger.debug({ err: error, requestId: request.id }, 'realtime: client socket error');
      socket.terminate();
    },
  });
  app.websocketServer.on('headers', (headers: string[], request: IncomingMessage) => {
    const id = sessionIds.get(request);
    if (id) headers.push(`X-Oneapi-Request-Id: ${id}`);
  });
  // With an 'upgrade' listener, Node hands every request with an Upgrade header over as an upgrade
  // (an h2c upgrade from curl --http2 too): the plugin routes it, and another path's route answers
  // as plain HTTP on a socket the HTTP server no longer minds. That socket ends with its answer,
  // or it would stay open, with no parser and no timeout. (Runs after the plugin's listener, which
  // has put its response on the socket.)
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    if (isRealtimeUpgrade(request)) return;
    const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (response && !response.writableFinished) response.once('finish', () => socket.end());
    else socket.end();
  });

  const upgradeRequired = () =>
    new RelayError(426, 'the Realtime API is a WebSocket: connect with an Upgrade: websocket request', 'upgrade_required', 'invalid_request_error');

  app.route({
    method: 'GET',
    url: '/v1/realtime',
    config: { access: 'public' },
    onRequest: [keyFromProtocol, requireApiKey(context.tokens)],
    preHandler: async (request) => {
      if (!request.ws || !isRealtimeUpgrade(request.raw)) throw upgradeRequired();
      const query = request.query as Record<string, unknown>;
      const model = typeof query.model === 'string' ? query.model.trim() : '';
      const forwarded = forwardedOf(request);
      const session = await openSession(context, { id: request.id, caller: callerOf(request), model, ...(forwarded ? { forwarded } : {}) });
      opened.set(request, session);
      sessionIds.set(request.raw, session.id);
      running.add(session);
      void session.finished.then(() => running.delete(session));
      // Should the client's handshake fail (or the client leave) before the upgrade, the upstream and the hold go.
      const orphan = () => {
        if (!attached.has(session)) session.abandon();
      };
      if (request.raw.socket.destroyed) orphan();
      else request.raw.socket.once('close', orphan);
    },
    handler: async () => {
      throw upgradeRequired();
    },
    wsHandler: (socket, request) => {
      const session = opened.get(request);
      if (!session) {
        socket.close(1011, 'no session');
        return;
      }
      attached.add(session);
      session.attach(socket);
    },
  });
};
