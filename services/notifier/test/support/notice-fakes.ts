import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback fakes that speak the public HTTP APIs of the notice services the notifier calls:
 * Bark (https://bark.day.app/#/tutorial), Gotify (https://gotify.net/api-docs) and WxPusher
 * (https://wxpusher.zjiecode.com/docs: sending, parametric QR codes and the scan query). Each
 * records what it was sent and answers as the real service does, refusals included.
 */

export interface RecordedRequest {
  method: string;
  /** Path and query as sent (still URL-encoded). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Fake {
  /** Base URL (http://127.0.0.1:port). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (request: RecordedRequest, response: ServerResponse) => void;

async function serve(handler: Handler): Promise<Fake> {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = { method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      handler(request, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const json = (response: ServerResponse, status: number, body: unknown) =>
  void response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));

/**
 * Bark: `GET /:key/:title/:body` (or `/:key/:body`) and `POST /:key` (or `POST /push` with
 * `device_key`) with JSON `{title, body}`; `{code: 200, message: 'success'}`, or code 400 for an
 * unknown device key (still HTTP 400, as Bark answers).
 */
export async function startBark(deviceKey: string): Promise<Fake> {
  return serve((request, response) => {
    const [key] = new URL(request.url, 'http://bark').pathname.split('/').filter(Boolean);
    if (key !== deviceKey) return json(response, 400, { code: 400, message: 'failed to get device token: device token not found', timestamp: 0 });
    json(response, 200, { code: 200, message: 'success', timestamp: Math.floor(Date.now() / 1000) });
  });
}

/** Gotify: `POST /message?token=<app token>` (or `X-Gotify-Key`) with `{title, message, priority, extras}`; 401 for a wrong token. */
export async function startGotify(appToken: string): Promise<Fake> {
  let id = 0;
  return serve((request, response) => {
    const url = new URL(request.url, 'http://gotify');
    if (request.method !== 'POST' || url.pathname !== '/message')
      return json(response, 404, { error: 'Not Found', errorCode: 404, errorDescription: 'page not found' });
    const token = url.searchParams.get('token') ?? request.headers['x-gotify-key'];
    if (token !== appToken)
      return json(response, 401, {
        error: 'Unauthorized',
        errorCode: 401,
        errorDescription: 'you need to provide a valid access token or user credentials to access this api',
      });
    const message = JSON.parse(request.body) as Record<string, unknown>;
    json(response, 200, { id: ++id, appid: 1, ...message, date: new Date().toISOString() });
  });
}

export interface WxPusherFake extends Fake {
  /** Someone scanned the QR code `code`: the scan query answers `uid` from now on. */
  scan(code: string, uid: string): void;
  /** The QR codes made, with the `extra` and valid time they were asked with. */
  qrCodes: Array<{ code: string; extra: string; validTime: number }>;
}

/**
 * WxPusher: `POST /api/fun/create/qrcode` `{appToken, extra, validTime}` ->
 * `{code: 1000, data: {expires, code, shortUrl, url, extra}}`; `GET /api/fun/scan-qrcode-uid?code=`
 * -> `{code: 1000, data: uid or null}`; `POST /api/send/message` `{appToken, content, summary,
 * contentType, uids}` -> `{code: 1000, data: [{uid, messageId, code: 1000}]}`. A wrong app token is
 * `{code: 1001}` with HTTP 200, as WxPusher answers.
 */
export async function startWxPusher(appToken: string): Promise<WxPusherFake> {
  const scanned = new Map<string, string>();
  const qrCodes: WxPusherFake['qrCodes'] = [];
  const badToken = { code: 1001, msg: 'appToken不正确', data: null, success: false };
  let messageId = 0;
  const fake = await serve((request, response) => {
    const url = new URL(request.url, 'http://wxpusher');
    if (request.method === 'POST' && url.pathname === '/api/fun/create/qrcode') {
      const body = JSON.parse(request.body) as { appToken: string; extra: string; validTime: number };
      if (body.appToken !== appToken) return json(response, 200, badToken);
      const code = `GZDq${qrCodes.length + 1}`;
      qrCodes.push({ code, extra: body.extra, validTime: body.validTime });
      const expires = Date.now() + body.validTime * 1000;
      return json(response, 200, {
        code: 1000,
        msg: '处理成功',
        data: {
          expires,
          code,
          shortUrl: `http://s.wxpusher.test/${code}`,
          url: `https://mp.weixin.qq.com/cgi-bin/showqrcode?ticket=${code}`,
          extra: body.extra,
        },
        success: true,
      });
    }
    if (request.method === 'GET' && url.pathname === '/api/fun/scan-qrcode-uid') {
      const code = url.searchParams.get('code') ?? '';
      return json(response, 200, { code: 1000, msg: '处理成功', data: scanned.get(code) ?? null, success: true });
    }
    if (request.method === 'POST' && url.pathname === '/api/send/message') {
      const body = JSON.parse(request.body) as { appToken: string; uids: string[] };
      if (body.appToken !== appToken) return json(response, 200, badToken);
      return json(response, 200, {
        code: 1000,
        msg: '处理成功',
        data: body.uids.map((uid) => ({
          uid,
          topicId: null,
          messageId: ++messageId,
          messageContentId: messageId,
          sendRecordId: messageId,
          code: 1000,
          status: '创建发送任务成功',
        })),
        success: true,
      });
    }
    json(response, 404, { code: 404, msg: 'not found' });
  });
  return { ...fake, qrCodes, scan: (code, uid) => void scanned.set(code, uid) };
}
