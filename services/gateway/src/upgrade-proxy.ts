import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '@aigw/platform';

/** The WebSocket APIs the relay serves (the Realtime API); other upgrades are not ours to pass. */
const upgradePaths = new Set(['/v1/realtime']);

/**
 * Distributed topology: a WebSocket handshake for the relay goes to it as it came, byte for byte
 * both ways once answered, so the relay's own checks answer it: its 101 with the session id, or
 * its 401/403/503 in OpenAI's shape before any upgrade (a proxy that accepted the client's socket
 * first could only close it). The key travels in the client's own headers or subprotocol; the
 * relay trusts nothing else of it.
 */
export function registerUpgradeProxy(app: App, relayUrl: string): void {
  const target = new URL(relayUrl);
  const sockets = new Set<Duplex>();
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?', 1)[0]!;
    if (!upgradePaths.has(path)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const outgoing = http.request({
      host: target.hostname,
      port: target.port,
      path: request.url,
      method: request.method,
      headers: { ...request.headers, host: target.host, 'x-forwarded-for': request.socket.remoteAddress ?? '' },
    });
    outgoing.on('upgrade', (response, upstream, upstreamHead) => {
      socket.write(statusLines(response) + '\r\n');
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
      const end = () => {
        upstream.destroy();
        socket.destroy();
      };
      upstream.once('close', end);
      socket.once('close', end);
      upstream.once('error', end);
      socket.once('error', end);
    });
    // Refused before the upgrade: the relay's answer goes back as it is.
    outgoing.on('response', (response) => {
      socket.write(statusLines(response) + '\r\n');
      response.pipe(socket);
    });
    outgoing.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'));
    socket.once('error', () => outgoing.destroy());
    outgoing.end();
  });
  app.addHook('onClose', async () => {
    for (const socket of sockets) socket.destroy();
  });
}

/** The status line and headers of an answer, as they came. */
function statusLines(response: IncomingMessage): string {
  let text = `HTTP/1.1 ${response.statusCode} ${response.statusMessage}\r\n`;
  for (let index = 0; index < response.rawHeaders.length; index += 2) text += `${response.rawHeaders[index]}: ${response.rawHeaders[index + 1]}\r\n`;
  return text;
}
