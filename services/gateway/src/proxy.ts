import httpProxy from '@fastify/http-proxy';
import { internalHeaders, signIdentity, type App } from '@aigw/platform';
import type { IncomingHttpHeaders } from 'node:http';
import { routeTable, services, type ServiceName } from './route-table.js';

/**
 * Distributed topology: each route-table prefix is proxied to its service, with the caller's
 * identity signed (HMAC with INTERNAL_SECRET, bound to method and URL, timestamped).
 */
export async function registerProxies(app: App, upstreams: Record<ServiceName, string>, internalSecret: string): Promise<void> {
  for (const service of services) {
    for (const prefix of routeTable[service]) {
      await app.register(httpProxy, {
        upstream: upstreams[service],
        prefix,
        rewritePrefix: prefix,
        config: { access: 'public' },
        replyOptions: {
          rewriteRequestHeaders: (request, headers: IncomingHttpHeaders) => {
            const forwarded: IncomingHttpHeaders = { ...headers };
            delete forwarded[internalHeaders.identity];
            delete forwarded[internalHeaders.signature];
            return {
              ...forwarded,
              'x-request-id': request.id,
              'x-forwarded-for': request.ip,
              ...signIdentity(internalSecret, request.method, request.url, request.auth, request.ip),
            };
          },
        },
      });
    }
  }
}
