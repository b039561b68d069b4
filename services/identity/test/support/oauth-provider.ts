import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake received, for assertions on what identity sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeOAuthProvider {
  /** Base URL (http://127.0.0.1:<port>): GitHub's web and API, LinuxDO, the OIDC issuer and the WeChat server at once. */
  url: string;
  requests: RecordedRequest[];
  /** Makes `code` valid once; the user endpoint then answers `user` (WeChat answers `user.id`). */
  grant(code: string, user: Record<string, unknown>): void;
  close(): Promise<void>;
}

/** A code that makes the token endpoints fail with a 500 that echoes the request, client secret included. */
export const ECHO_CODE = 'echo-the-request';

/**
 * One loopback server that plays every third-party login identity talks to: the token endpoints
 * (GitHub's answers 200 with `error` for a bad code, the others 400), the user endpoints, an OIDC
 * discovery document, and the WeChat server's `/api/wechat/user`.
 */
export async function startFakeOAuthProvider(): Promise<FakeOAuthProvider> {
  const requests: RecordedRequest[] = [];
  const codes = new Map<string, Record<string, unknown>>();
  const tokens = new Map<string, Record<string, unknown>>();
  let base = '';

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', base);
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', path: url.pathname, query: url.searchParams, headers: request.headers, body });
      const send = (status: number, answer: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
      };
      const route = `${request.method} ${url.pathname}`;

      if (['POST /login/oauth/access_token', 'POST /oauth2/token', 'POST /oidc/token'].includes(route)) {
        const code = route.startsWith('POST /login') ? (JSON.parse(body) as { code?: string }).code : new URLSearchParams(body).get('code');
        if (code === ECHO_CODE)
          return send(500, { error: 'server_error', error_description: `cannot handle ${body} (${request.headers.authorization ?? ''})` });
        const user = code ? codes.get(code) : undefined;
        if (!user) {
          const refusal = { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' };
          return send(route.startsWith('POST /login') ? 200 : 400, refusal);
        }
        codes.delete(code!);
        const token = crypto.randomBytes(12).toString('hex');
        tokens.set(token, user);
        return send(200, { access_token: token, token_type: 'bearer', scope: 'user' });
      }
      if (['GET /user', 'GET /api/user', 'GET /oidc/userinfo'].includes(route)) {
        const user = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
        return user ? send(200, user) : send(401, { message: 'Bad credentials' });
      }
      if (route === 'GET /.well-known/openid-configuration') {
        return send(200, {
          issuer: base,
          authorization_endpoint: `${base}/oidc/authorize`,
          token_endpoint: `${base}/oidc/token`,
          userinfo_endpoint: `${base}/oidc/userinfo`,
        });
      }
      if (route === 'GET /api/wechat/user') {
        const code = url.searchParams.get('code') ?? '';
        const user = codes.get(code);
        codes.delete(code);
        return send(200, user ? { success: true, message: '', data: user.id } : { success: false, message: 'the verification code is wrong or has expired' });
      }
      send(404, { message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    requests,
    grant: (code, user) => void codes.set(code, user),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
