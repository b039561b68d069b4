import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Sent right after the head; the rest of what Content-Length announces never is. */
  body?: string | Buffer;
}

/**
 * One request on a raw socket to 127.0.0.1:`port`, answered without the client ever sending more
 * than `body` (by default nothing beyond the head): an answer proves the server decided before it
 * read the body its Content-Length announced. Resolves with the first answer; rejects when the
 * server closes without one.
 */
export function sendRaw(port: number, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: RawAnswer | Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const tryParse = (closed: boolean) => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return closed ? finish(new Error(`closed without an answer: ${received.toString()}`)) : undefined;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const body = received.subarray(end + 4);
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
      if (length !== undefined ? body.length >= length : closed) {
        finish({ status: Number(statusLine!.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') });
      }
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (error) => (received.length > 0 ? tryParse(true) : finish(error)));
    socket.on('close', () => tryParse(true));
    const head = [
      `${request.method} ${request.path} HTTP/1.1`,
      'host: 127.0.0.1',
      ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    if (request.body !== undefined) socket.write(request.body);
  });
}
