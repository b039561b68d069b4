import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localizeMessage, msg } from '@aigw/contracts';
import { answerLocale, type App } from '@aigw/platform';
import { isApiPath, isRelayPath } from './route-table.js';

const placeholder = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>AI Gateway</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>AI Gateway</h1>
<p>The server is running. The console is not built yet; the API answers under <code>/api</code>
and the relay under <code>/v1</code>.</p>
<p><a href="/api/status">/api/status</a></p>
</body></html>`;

/**
 * The JSON 404 of an unknown API path (and of any unknown path but a GET), in the path's shape;
 * undefined for a console route (the SPA's index.html answers those). The gateway calls it as the
 * request arrives, so the body of an unknown path is never read.
 */
export function answerUnknownApiPath(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const message = localizeMessage(msg('platform.invalid_url', { method: request.method, path: request.url.split('?', 1)[0]! }), answerLocale(request));
  if (isRelayPath(request.url)) return reply.status(404).send({ error: { message, type: 'invalid_request_error', code: 'not_found' } });
  if (isApiPath(request.url) || (request.method !== 'GET' && request.method !== 'HEAD')) {
    return reply.status(404).send({ success: false, message });
  }
  return undefined;
}

/**
 * The console: files from web/dist with SPA fallback to index.html (no-cache), or a
 * placeholder page until the console is built. Unknown API paths get JSON 404s:
 * the envelope for the console API, the OpenAI error shape for relay paths.
 */
export async function registerConsole(app: App, webDistDir: string | undefined): Promise<void> {
  const indexFile = webDistDir ? path.join(webDistDir, 'index.html') : undefined;
  const hasConsole = indexFile !== undefined && fs.existsSync(indexFile);
  if (hasConsole) {
    await app.register(fastifyStatic, {
      root: webDistDir!,
      wildcard: false,
      index: false,
      // Vite names built assets by content hash: they never change, so browsers keep them.
      setHeaders: (response, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        response.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
      cacheControl: false,
    });
  }

  app.setNotFoundHandler(async (request, reply) => {
    const answered = answerUnknownApiPath(request, reply);
    if (answered) return answered;
    reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8');
    return hasConsole ? reply.sendFile('index.html', { cacheControl: false }) : reply.send(placeholder);
  });
}
