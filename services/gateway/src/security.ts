import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRelayPath } from './route-table.js';

/**
 * The console's CSP: no inline script (rule R9). Scripts come from this origin, plus the two
 * third-party widgets the console loads when the admin turns them on (the human check and the
 * Telegram login). Inline styles are allowed because the component library sets style
 * attributes. Frames: the admin's home/about page when it is a URL, the chat clients of the
 * chat pages, and the widgets' own frames.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' https://challenges.cloudflare.com https://telegram.org",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "frame-src 'self' https: http:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  // The wallet submits its payment form to the configured gateway.
  "form-action 'self' https: http:",
  "object-src 'none'",
].join('; ');

/** Security headers on every answer; CSP on HTML; no-store on the console API. */
export async function securityHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'strict-origin-when-cross-origin');
  const type = String(reply.getHeader('content-type') ?? '');
  if (type.startsWith('text/html')) reply.header('Content-Security-Policy', contentSecurityPolicy);
  if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
  if (isRelayPath(request.url)) {
    reply.header('Access-Control-Allow-Origin', '*');
    // Browser clients may read the request id support matches complaints to, and the gateway's own time.
    reply.header('Access-Control-Expose-Headers', 'X-Oneapi-Request-Id, X-Aigw-Overhead-Ms');
  }
  return payload;
}

/**
 * CORS only for the relay paths (client apps in browsers call them with sk- keys, no cookies);
 * the console API stays same-origin. Answers preflights before routing.
 */
export async function corsPreflight(request: FastifyRequest, reply: FastifyReply) {
  if (request.method !== 'OPTIONS' || !isRelayPath(request.url)) return;
  const requested = request.headers['access-control-request-headers'];
  await reply
    .status(204)
    .header('Access-Control-Allow-Origin', '*')
    .header('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS')
    .header('Access-Control-Allow-Headers', typeof requested === 'string' ? requested : 'authorization, content-type')
    .header('Access-Control-Max-Age', '86400')
    .send();
}
