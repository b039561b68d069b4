import { Readable } from 'node:stream';
import type { RoutingChannel } from '@aigw/contracts';
import type { EgressResponse } from '@aigw/platform';
import type WebSocket from 'ws';
import { openUpstream } from './realtime/upstream.js';
import { formatSse } from './sse/sse-parser.js';
import type { Failure } from './relay-call.js';
import type { ProviderDefinition, UpstreamRequest } from './providers/types.js';

/**
 * A call a provider makes over a WebSocket (UpstreamRequest.websocket: iFlytek Spark): the socket
 * is opened under the same egress rules as the realtime relay's (realtime/upstream.ts: URL rules,
 * every resolved address judged, the channel's private-network flag), the request's body is sent
 * as one message, and what the upstream sends becomes the body of an ordinary answer: one
 * server-sent event per message, ended when the upstream closes. The rest of the relay (stream
 * pump, idle and answer deadlines, client gone) treats it as any streamed HTTP answer;
 * destroying the body closes the socket.
 */
export async function socketAnswer(
  channel: RoutingChannel,
  provider: ProviderDefinition,
  request: UpstreamRequest,
  key: string,
  timeouts: { handshakeMs: number },
): Promise<{ response: EgressResponse } | { failure: Failure; detail: string }> {
  const opened = await openUpstream(channel, provider, { url: request.url, headers: request.headers }, key, timeouts);
  if ('failure' in opened) return opened;
  const { socket } = opened;
  const body = messagesAsEvents(socket);
  socket.resume();
  socket.send(request.body ?? '');
  // Undici's body type has more than the relay uses of it (iteration and destroy), so the cast.
  return { response: { statusCode: 200, headers: { 'content-type': 'text/event-stream' }, body: body as unknown as EgressResponse['body'] } };
}

/** The socket's messages as SSE text, with backpressure: the socket pauses while the reader lags. */
function messagesAsEvents(socket: WebSocket): Readable {
  const body = new Readable({
    read() {
      socket.resume();
    },
    destroy(error, callback) {
      socket.removeAllListeners('message');
      socket.terminate();
      callback(error);
    },
  });
  socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    if (isBinary || body.destroyed) return;
    if (!body.push(formatSse(rawText(data)))) socket.pause();
  });
  socket.once('close', () => {
    if (!body.destroyed) body.push(null);
  });
  socket.on('error', (error) => body.destroy(error));
  return body;
}

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
